package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/lendingpipe/svc/internal/apperr"
	"github.com/lendingpipe/svc/internal/bounds"
)

// UploadLimits bound the files GraphQL multipart requests carry.
type UploadLimits struct {
	// Document is the largest document uploadDocument takes.
	Document int64
	// Import is the largest CSV file importLeads takes.
	Import int64
}

// Defaults of UploadLimits.
const (
	DefaultMaxDocumentBytes = 25 << 20
	DefaultMaxImportBytes   = 100 << 20
)

// RequestLimit is the largest multipart request body: the largest file
// and room for the operation beside it (jsonLimit, the JSON body limit).
func (l UploadLimits) RequestLimit(jsonLimit int64) int64 {
	return max(l.Document, l.Import) + jsonLimit
}

func (l UploadLimits) withDefaults() UploadLimits {
	if l.Document <= 0 {
		l.Document = DefaultMaxDocumentBytes
	}
	if l.Import <= 0 {
		l.Import = DefaultMaxImportBytes
	}
	return l
}

// IsMultipart reports whether r carries a multipart form: a GraphQL
// multipart request when it is sent to GraphQL.
func IsMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// multipartTransport serves the GraphQL multipart request specification:
// an operations part (one GraphQL request object), a map part (file part
// name to the variable paths it fills), then the files. Each file is
// spooled to a temporary file as it arrives, so memory stays flat however
// large it is, and removed once the response is written. The HTTP surface
// has capped the body (UploadLimits.RequestLimit); each field checks its
// own file's size.
type multipartTransport struct {
	// maxJSON bounds the operations and map parts.
	maxJSON int64
}

var _ graphql.Transport = multipartTransport{}

func (multipartTransport) Supports(r *http.Request) bool {
	return r.Method == http.MethodPost && IsMultipart(r)
}

func (t multipartTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	start := graphql.Now()
	params, files, err := t.read(r)
	defer removeAll(files)
	if err != nil {
		status := http.StatusBadRequest
		if err.Code == apperr.PayloadTooLarge {
			status = http.StatusRequestEntityTooLarge
		}
		WriteRequestError(w, r, status, err)
		return
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	exec = inputErrors{exec}
	w.Header().Set("Content-Type", "application/json")
	ctx := r.Context()
	oc, opErr := exec.CreateOperationContext(ctx, params)
	if opErr != nil {
		w.WriteHeader(http.StatusUnprocessableEntity)
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, oc), opErr)
		writeJSON(w, refusal{Errors: resp.Errors, Extensions: resp.Extensions})
		return
	}
	// An operation with a file field holds that field only (takesFiles);
	// one that does not is a malformed upload like the others, so it is
	// refused here with their 400 rather than answered 200 with errors.
	if _, gerr := takesFiles(oc.Operation); gerr != nil && isMutation(oc.Operation) {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, refusal{Errors: gqlerror.List{gerr}})
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, oc)
	resp := responses(ctx)
	if status := fileRefusal(resp); status != 0 {
		w.WriteHeader(status)
	}
	writeJSON(w, resp)
}

// fileRefusal is the HTTP status of a response refusing its file: an
// operation with files holds one field (takesFiles), so its file's size,
// type or emptiness failing is the request failing, as 413, 415 or 422 say
// over HTTP.
func fileRefusal(resp *graphql.Response) int {
	for _, e := range resp.Errors {
		switch e.Extensions["code"] {
		case apperr.PayloadTooLarge:
			return http.StatusRequestEntityTooLarge
		case apperr.UnsupportedMediaType:
			return http.StatusUnsupportedMediaType
		case apperr.Validation:
			if e.Extensions["field"] == "file" {
				return http.StatusUnprocessableEntity
			}
		}
	}
	return 0
}

func writeJSON(w io.Writer, resp any) {
	_ = json.NewEncoder(w).Encode(resp) // the client is gone if this fails
}

// read parses the multipart body into the operation's parameters, its
// variables holding a graphql.Upload at each mapped path. The map is
// checked against the operation before any file is read, so a form that
// could only be half bound is refused before its files are spooled.
func (t multipartTransport) read(r *http.Request) (*graphql.RawParams, []*os.File, *apperr.Error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, nil, apperr.New(apperr.BadRequest, "the body is not a multipart form: %v", err)
	}
	var params graphql.RawParams
	if err := t.readJSONPart(mr, "operations", &params); err != nil {
		return nil, nil, err
	}
	var fileMap map[string][]string
	if err := t.readJSONPart(mr, "map", &fileMap); err != nil {
		return nil, nil, err
	}
	if params.Variables == nil {
		params.Variables = map[string]any{}
	}
	if err := checkMap(params.Variables, fileMap); err != nil {
		return nil, nil, err
	}
	files, err2 := readFiles(mr, params.Variables, fileMap)
	return &params, files, err2
}

// readFiles spools each file part the map names and binds it at its
// paths; a part the map does not name, before or after them, is refused.
func readFiles(mr *multipart.Reader, vars map[string]any, fileMap map[string][]string) ([]*os.File, *apperr.Error) {
	var files []*os.File
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			if len(fileMap) > 0 {
				return files, apperr.New(apperr.BadRequest, "the map names file parts the form does not hold: %s",
					strings.Join(slices.Sorted(maps.Keys(fileMap)), ", "))
			}
			return files, nil
		}
		if err != nil {
			return files, partError(err)
		}
		paths, ok := fileMap[part.FormName()]
		if !ok {
			return files, apperr.New(apperr.BadRequest, "the form part %s is not in the map", apperr.Quote(part.FormName()))
		}
		delete(fileMap, part.FormName())
		f, upload, aerr := spool(part)
		if f != nil {
			files = append(files, f)
		}
		if aerr != nil {
			return files, aerr
		}
		for _, path := range paths {
			upload.File = io.NewSectionReader(f, 0, upload.Size) // each path reads from the start
			slot, aerr := variableSlot(vars, path)
			if aerr != nil {
				return files, aerr
			}
			slot(upload)
		}
	}
}

// checkMap checks the map against the operation's variables, as the
// GraphQL multipart request specification has them: each file part fills
// at least one path, each path names a variable (or an item or member of
// one) that the operations part holds as null, and no path is filled by
// two files, which would leave one of them silently unused.
func checkMap(vars map[string]any, fileMap map[string][]string) *apperr.Error {
	filledBy := map[string]string{}
	for _, key := range slices.Sorted(maps.Keys(fileMap)) {
		if len(fileMap[key]) == 0 {
			return apperr.New(apperr.BadRequest, "the map's file part %s fills no variable; give it a path such as \"variables.file\"", apperr.Quote(key))
		}
		for _, path := range fileMap[key] {
			switch other, ok := filledBy[path]; {
			case ok && other == key:
				return apperr.New(apperr.BadRequest, "the map lists %s twice for file part %s", apperr.Quote(path), apperr.Quote(key))
			case ok:
				return apperr.New(apperr.BadRequest, "%s is mapped to more than one file part (%s and %s); map each file to a path of its own",
					apperr.Quote(path), apperr.Quote(other), apperr.Quote(key))
			}
			filledBy[path] = key
			if _, err := variableSlot(vars, path); err != nil {
				return err
			}
		}
	}
	return nil
}

// variableSlot finds the null that path (variables.name, then member
// names and list indexes, dot-separated) names in vars, answering a
// function that puts a value there.
func variableSlot(vars map[string]any, path string) (func(any), *apperr.Error) {
	steps := strings.Split(path, ".")
	if len(steps) < 2 || steps[0] != "variables" {
		return nil, apperr.New(apperr.BadRequest, "the map's path %s does not start with \"variables.\"", apperr.Quote(path))
	}
	missing := apperr.New(apperr.BadRequest, "the map's path %s names no variable of the operations part", apperr.Quote(path))
	var at any = vars
	var set func(any)
	for _, step := range steps[1:] {
		switch v := at.(type) {
		case map[string]any:
			member, ok := v[step]
			if !ok {
				return nil, missing
			}
			at, set = member, func(x any) { v[step] = x }
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(v) {
				return nil, missing
			}
			at, set = v[i], func(x any) { v[i] = x }
		default:
			return nil, missing
		}
	}
	if at != nil {
		return nil, apperr.New(apperr.BadRequest, "the variable at the map's path %s must be null in the operations part; the file fills it", apperr.Quote(path))
	}
	return set, nil
}

// readJSONPart reads the next part, which must be named name and hold
// one JSON value no larger than the JSON body limit, into dst.
func (t multipartTransport) readJSONPart(mr *multipart.Reader, name string, dst any) *apperr.Error {
	part, err := mr.NextPart()
	if errors.Is(err, io.EOF) {
		return apperr.New(apperr.BadRequest, "the multipart request has no %s part; its parts must be operations, then map, then the files", name)
	}
	if err != nil {
		return partError(err)
	}
	if part.FormName() != name {
		return apperr.New(apperr.BadRequest, "the multipart form's parts must be operations, then map, then the files; got %s where %s belongs",
			apperr.Quote(part.FormName()), name)
	}
	body, err := io.ReadAll(io.LimitReader(part, t.maxJSON+1))
	if err != nil {
		return partError(err)
	}
	if int64(len(body)) > t.maxJSON {
		return apperr.New(apperr.PayloadTooLarge, "the %s part exceeds %d bytes", name, t.maxJSON)
	}
	if name == "operations" {
		if e := checkRequest(body); e != nil {
			return e
		}
	} else if path := bounds.DuplicateMember(body); path != "" {
		e, _ := apperr.As(bounds.DuplicateError(name + "." + path))
		return e
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return &apperr.Error{Code: apperr.BadRequest, Field: name, Message: fmt.Sprintf("%s must be a JSON object: %v", name, err)}
	}
	return nil
}

// spool copies a file part to a temporary file.
func spool(part *multipart.Part) (*os.File, graphql.Upload, *apperr.Error) {
	f, err := os.CreateTemp("", "svc-upload-*")
	if err != nil {
		return nil, graphql.Upload{}, apperr.New(apperr.Internal, "no room for the upload: %v", err)
	}
	n, err := io.Copy(f, part)
	if err != nil {
		return f, graphql.Upload{}, partError(err)
	}
	return f, graphql.Upload{
		Filename:    part.FileName(),
		Size:        n,
		ContentType: part.Header.Get("Content-Type"),
	}, nil
}

// partError says why a part could not be read: the body's cap, or a
// malformed form.
func partError(err error) *apperr.Error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return apperr.New(apperr.PayloadTooLarge, "request body exceeds %d bytes", mbe.Limit)
	}
	return apperr.New(apperr.BadRequest, "the multipart form could not be read: %v", err)
}

func removeAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}
}
