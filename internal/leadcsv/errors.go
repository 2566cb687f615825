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
