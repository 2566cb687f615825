// Package leadcsv reads lead lists from CSV files: it streams the records,
// strips a byte-order mark, matches headers to lead fields by a mapping or
// by common aliases, and turns each record into the fields of a lead.
//
// A leaf: it imports nothing of this service.
package leadcsv
