package graph

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// publicField reports whether a caller with no credential may select
// name at a mutation's root: accepting an invitation, whose token is the
// credential (PRODUCT 9.1).
func publicField(name string) bool { return name == "acceptInvitation" || name == "__typename" }

// PublicOperation reports whether r is a GraphQL request, sent with no
// credential, that asks only for what needs none: a JSON POST whose
// operation is a mutation selecting acceptInvitation alone. The body is
// read (the HTTP surface has bounded it) and put back for the handler;
// anything it cannot read is not public, and is refused as any request
// without a credential is.
func PublicOperation(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil || IsMultipart(r) {
		return false
	}
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	var req struct {
		Query         string `json:"query"`
		OperationName string `json:"operationName"`
	}
	if json.Unmarshal(body, &req) != nil {
		return false
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: req.Query})
	if err != nil || len(doc.Fragments) > 0 {
		return false
	}
	op := doc.Operations.ForName(req.OperationName)
	if op == nil && req.OperationName == "" && len(doc.Operations) == 1 {
		op = doc.Operations[0]
	}
	if op == nil || op.Operation != ast.Mutation || len(op.SelectionSet) == 0 {
		return false
	}
	for _, sel := range op.SelectionSet {
		f, ok := sel.(*ast.Field)
		if !ok || !publicField(f.Name) {
			return false
		}
	}
	return true
}
