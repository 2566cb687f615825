package leadcsv

// RowError is one row an import could not take: the row's line number in
// the file (the header is line 1), the lead field at fault when there is
// one, and the code and message POST /v1/leads would answer for it.
type RowError struct {
	Row     int    `json:"row"`
	Field   string `json:"field,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// CodeBadRequest is the code of a row that is not CSV, as a body that is
// not JSON is BAD_REQUEST on POST /v1/leads.
const CodeBadRequest = "BAD_REQUEST"

// MaxErrors is how many row errors a job keeps: the first ones, in file
// order.
const MaxErrors = 1000
