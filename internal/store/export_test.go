package store

// LeadReadColumns are the columns ReadLead reads, for the test holding
// them to the schema's.
func LeadReadColumns() []string { return leadReadColumns }
