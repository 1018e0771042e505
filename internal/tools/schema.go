package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// param describes one parameter of a tool, for objectSchema.
type param struct {
	name        string
	typ         string // string, integer, number, boolean
	required    bool
	minimum     *float64
	description string
}

func minimum(v float64) *float64 { return &v }

// objectSchema builds the JSON schema of a tool's parameters, keeping their
// order (models read it top to bottom).
func objectSchema(params ...param) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range params {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(p.name)
		desc, _ := json.Marshal(p.description)
		fmt.Fprintf(&b, `%s:{"type":%q,"description":%s`, name, p.typ, desc)
		if p.minimum != nil {
			fmt.Fprintf(&b, `,"minimum":%v`, *p.minimum)
		}
		b.WriteByte('}')
		if p.required {
			required = append(required, p.name)
		}
	}
	b.WriteString(`},"required":`)
	if required == nil {
		required = []string{}
	}
	req, _ := json.Marshal(required)
	b.Write(req)
	b.WriteString(`,"additionalProperties":false}`)
	return json.RawMessage(b.Bytes())
}

// schema is the subset of JSON schema the registry validates: an object of
// typed properties, required names, no unknown properties, minimum/maximum
// and enum.
type schema struct {
	Type                 string             `json:"type"`
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	AdditionalProperties *bool              `json:"additionalProperties"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	Enum                 []any              `json:"enum"`
	Items                *schema            `json:"items"`
	order                []string           // property names in schema order
}

func parseSchema(raw json.RawMessage) (*schema, error) {
	var s schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	s.order = propertyOrder(raw)
	return &s, nil
}

// propertyOrder returns the property names in the order the schema lists
// them (a map forgets it).
func propertyOrder(raw json.RawMessage) []string {
	var top struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &top) != nil || len(top.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return names
		}
		name, _ := t.(string)
		names = append(names, name)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return names
		}
	}
	return names
}

// validate checks input against s and returns a message the model can act
// on, or "" when the input fits.
func (s *schema) validate(input json.RawMessage) string {
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Sprintf("the arguments are not valid JSON (%v)", err)
	}
	if dec.More() {
		return "the arguments are not valid JSON (extra data after the object)"
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Sprintf("the arguments must be a JSON object, got %s", jsonKind(v))
	}
	var problems []string
	for _, name := range s.Required {
		if _, ok := obj[name]; !ok {
			problems = append(problems, fmt.Sprintf("missing required parameter %q", name))
		}
	}
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop, ok := s.Properties[name]
		if !ok {
			if s.AdditionalProperties == nil || *s.AdditionalProperties {
				continue
			}
			problems = append(problems, fmt.Sprintf("unknown parameter %q", name))
			continue
		}
		if msg := prop.check(obj[name]); msg != "" {
			problems = append(problems, fmt.Sprintf("parameter %q %s", name, msg))
		}
	}
	return strings.Join(problems, "; ")
}

// check validates one value against a property schema.
func (s *schema) check(v any) string {
	if v == nil {
		// An explicit null for an optional parameter means "not given".
		return ""
	}
	switch s.Type {
	case "string":
		if _, ok := v.(string); !ok {
			return "must be a string, got " + jsonKind(v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return "must be true or false, got " + jsonKind(v)
		}
	case "integer", "number":
		n, ok := v.(json.Number)
		if !ok {
			return "must be a number, got " + jsonKind(v)
		}
		f, err := n.Float64()
		if err != nil {
			return "must be a number, got " + n.String()
		}
		if _, err := n.Int64(); s.Type == "integer" && err != nil {
			return "must be a whole number, got " + n.String()
		}
		if s.Minimum != nil && f < *s.Minimum {
			return fmt.Sprintf("must be at least %v, got %s", *s.Minimum, n.String())
		}
		if s.Maximum != nil && f > *s.Maximum {
			return fmt.Sprintf("must be at most %v, got %s", *s.Maximum, n.String())
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			return "must be an array, got " + jsonKind(v)
		}
		if s.Items != nil {
			for i, item := range items {
				if msg := s.Items.check(item); msg != "" {
					return fmt.Sprintf("item %d %s", i, msg)
				}
			}
		}
	case "object":
		if _, ok := v.(map[string]any); !ok {
			return "must be an object, got " + jsonKind(v)
		}
	}
	if len(s.Enum) > 0 {
		for _, e := range s.Enum {
			if fmt.Sprint(e) == fmt.Sprint(v) {
				return ""
			}
		}
		return fmt.Sprintf("must be one of %v, got %v", s.Enum, v)
	}
	return ""
}

// usage lists the parameters for an error message: `path (string,
// required), offset (integer)`.
func (s *schema) usage() string {
	names := s.order
	if len(names) == 0 {
		for name := range s.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	parts := make([]string, 0, len(names))
	for _, name := range names {
		p := s.Properties[name]
		if p == nil {
			continue
		}
		kind := p.Type
		if required[name] {
			kind += ", required"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", name, kind))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case json.Number:
		return "number " + x.String()
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// decodeInput decodes validated input into a tool's parameter struct.
func decodeInput(input json.RawMessage, v any) error {
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(trimmed, v); err != nil {
		return fmt.Errorf("decode input: %w", err)
	}
	return nil
}

// UnmarshalJSON reads a schema leniently: the tools of MCP servers send
// any JSON schema, and what the registry does not check (a list of types,
// a boolean schema, tuple items, a schema as additionalProperties, a
// malformed keyword) is left unchecked rather than refused.
func (s *schema) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		var boolean bool
		if json.Unmarshal(b, &boolean) == nil {
			return nil // true or false: nothing the registry checks
		}
		return err
	}
	*s = schema{}
	lenient := func(key string, v any) bool {
		r, ok := raw[key]
		return ok && json.Unmarshal(r, v) == nil
	}
	if !lenient("type", &s.Type) {
		s.Type = ""
		// ["string", "null"]: one type besides null is that type.
		var types []string
		lenient("type", &types)
		var kinds []string
		for _, t := range types {
			if t != "null" {
				kinds = append(kinds, t)
			}
		}
		if len(kinds) == 1 {
			s.Type = kinds[0]
		}
	}
	var props map[string]json.RawMessage
	lenient("properties", &props)
	if len(props) > 0 {
		s.Properties = make(map[string]*schema, len(props))
		for name, r := range props {
			var p schema
			_ = p.UnmarshalJSON(r)
			s.Properties[name] = &p
		}
	}
	var required []any
	lenient("required", &required)
	for _, r := range required {
		if name, ok := r.(string); ok {
			s.Required = append(s.Required, name)
		}
	}
	if b := false; lenient("additionalProperties", &b) {
		s.AdditionalProperties = &b
	}
	if n := 0.0; lenient("minimum", &n) {
		s.Minimum = &n
	}
	if n := 0.0; lenient("maximum", &n) {
		s.Maximum = &n
	}
	if !lenient("enum", &s.Enum) {
		s.Enum = nil
	}
	if r, ok := raw["items"]; ok && len(bytes.TrimSpace(r)) > 0 && bytes.TrimSpace(r)[0] == '{' {
		var items schema
		if items.UnmarshalJSON(r) == nil {
			s.Items = &items
		}
	}
	return nil
}
