// Package eventtest holds event payloads to the catalog for tests: each
// payload must validate against its event type's JSON Schema in
// event.Catalog (its required fields present, of their types and formats,
// and no field the schema does not name).
//
// It is imported by tests only, and imports only internal/event of this service.
package eventtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lendingpipe/svc/internal/event"
)

// schemas are the catalog's payload schemas, compiled once.
var schemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat() // uuid and date-time are checked, not merely noted
	out := map[string]*jsonschema.Schema{}
	for _, t := range event.Catalog {
		doc, err := decode(t.Schema)
		if err != nil {
			return nil, fmt.Errorf("the schema of %s: %w", t.Name, err)
		}
		url := "catalog:///" + t.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("the schema of %s: %w", t.Name, err)
		}
		if out[t.Name], err = c.Compile(url); err != nil {
			return nil, fmt.Errorf("compiling the schema of %s: %w", t.Name, err)
		}
	}
	return out, nil
})

// Check returns why data is not a valid payload of the event type name,
// or nil when it is. data is read as its JSON, as a receiver reads it.
func Check(name string, data any) error {
	all, err := schemas()
	if err != nil {
		return err
	}
	s, ok := all[name]
	if !ok {
		return fmt.Errorf("%q is not an event type of the catalog", name)
	}
	v, err := decode(data)
	if err != nil {
		return fmt.Errorf("the %s payload: %w", name, err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("the %s payload does not match the catalog: %w", name, err)
	}
	return nil
}

// decode turns v into the JSON value the validator reads (numbers kept
// exact, slices of strings as arrays).
func decode(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	return out, nil
}
