package leadcsv

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Field is a lead field a CSV column can fill: its API name, the headers
// that name it when no mapping does, and how a cell becomes the JSON value
// POST /v1/leads would take for it.
type Field struct {
	Name    string
	Aliases []string
	value   func(cell string) any
}

// Fields are the lead fields an import reads, in the order of POST
// /v1/leads. Objects and references (customFields, externalIds, stageId,
// assignToAdvisorId, contactId, source) are not read from files: a lead
// list carries none, and every imported lead's source is csv_import.
var Fields = []Field{
	{Name: "businessName", Aliases: []string{"business name", "business_name", "businessname", "company", "company name",
		"company_name", "business", "organization", "organisation", "legal name", "dba"}, value: text},
	{Name: "contactFirstName", Aliases: []string{"first name", "first_name", "firstname", "contact first name",
		"contact_first_name", "given name"}, value: text},
	{Name: "contactLastName", Aliases: []string{"last name", "last_name", "lastname", "contact last name",
		"contact_last_name", "surname", "family name"}, value: text},
	{Name: "email", Aliases: []string{"email", "e-mail", "email address", "email_address", "e-mail address",
		"contact email"}, value: text},
	{Name: "phone", Aliases: []string{"phone", "phone number", "phone_number", "mobile", "mobile phone", "cell",
		"telephone", "tel", "contact phone"}, value: text},
	{Name: "industry", Aliases: []string{"industry", "sector", "business type"}, value: text},
	{Name: "monthlyRevenue", Aliases: []string{"monthly revenue", "monthly_revenue", "monthlyrevenue", "revenue",
		"monthly sales"}, value: amount},
	{Name: "requestedAmount", Aliases: []string{"requested amount", "requested_amount", "requestedamount", "amount",
		"loan amount", "loan_amount", "amount requested", "funding amount"}, value: amount},
	{Name: "priority", Aliases: []string{"priority"}, value: lower},
	{Name: "tags", Aliases: []string{"tags", "tag", "labels"}, value: tags},
}

// fieldByName finds a field by its API name, exactly.
func fieldByName(name string) (Field, bool) {
	for _, f := range Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// normHeader compares headers without case and without surrounding or
// repeated spaces.
func normHeader(h string) string {
	return strings.ToLower(strings.Join(strings.Fields(h), " "))
}

// text is the cell as given (trimmed).
func text(cell string) any { return cell }

// lower is an enumeration's cell: the API's values are lower case, files
// often capitalise them ("High").
func lower(cell string) any { return strings.ToLower(cell) }

// grouped is an amount written with thousands separators and perhaps a
// dollar sign, as spreadsheets export them: "$12,500.00".
var grouped = regexp.MustCompile(`^\$?\s*[0-9]{1,3}(,[0-9]{3})+(\.[0-9]+)?$|^\$\s*[0-9]+(\.[0-9]+)?$`)

// amount is a decimal string without a dollar sign or thousands
// separators; anything else is passed as given, for the lead's own rule to
// refuse with its usual message.
func amount(cell string) any {
	if grouped.MatchString(cell) {
		return strings.NewReplacer("$", "", ",", "", " ", "").Replace(cell)
	}
	return cell
}

// tags splits a cell on commas or semicolons into trimmed, non-empty tags.
func tags(cell string) any {
	parts := strings.FieldsFunc(cell, func(r rune) bool { return r == ',' || r == ';' })
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Object turns a record's cells into the JSON members POST /v1/leads
// would receive: an empty cell is a member left out.
func Object(cells map[string]string) (map[string]json.RawMessage, error) {
	obj := make(map[string]json.RawMessage, len(cells))
	for name, cell := range cells {
		f, ok := fieldByName(name)
		if !ok {
			continue
		}
		raw, err := json.Marshal(f.value(cell))
		if err != nil {
			return nil, err
		}
		obj[name] = raw
	}
	return obj, nil
}
