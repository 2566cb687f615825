package resttest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/textproto"
)

// File is one file of a GraphQL multipart request.
type File struct {
	// Var is the variable it fills ("file"), or a path below variables.
	Var      string
	Name     string
	Content  []byte
	MimeType string // the client's claim; application/octet-stream when empty
}

// MultipartBody builds a GraphQL multipart request (the GraphQL multipart
// request specification): the operations part, the map part, then one
// part per file. It answers the body and its Content-Type.
func MultipartBody(query string, vars map[string]any, files ...File) ([]byte, string, error) {
	if vars == nil {
		vars = map[string]any{}
	}
	fileMap := map[string][]string{}
	for i, f := range files {
		vars[f.Var] = nil // the specification's placeholder
		fileMap[fmt.Sprint(i)] = []string{"variables." + f.Var}
	}
	ops, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return nil, "", err
	}
	mapped, err := json.Marshal(fileMap)
	if err != nil {
		return nil, "", err
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("operations", string(ops))
	_ = w.WriteField("map", string(mapped))
	for i, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", multipart.FileContentDisposition(fmt.Sprint(i), f.Name))
		h.Set("Content-Type", cmp.Or(f.MimeType, "application/octet-stream"))
		part, err := w.CreatePart(h)
		if err != nil {
			return nil, "", err
		}
		if _, err := part.Write(f.Content); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

// Upload sends a GraphQL operation with files as a multipart request.
func (e *Env) Upload(key, query string, vars map[string]any, files ...File) *Response {
	e.T.Helper()
	body, contentType, err := MultipartBody(query, vars, files...)
	if err != nil {
		e.T.Fatalf("building the multipart request: %v", err)
	}
	return e.Do(Request{Method: "POST", Path: "/graphql", Key: key, Body: body, Header: map[string]string{"Content-Type": contentType}})
}
