package config

// Unknown keys: a pass over a config file's JSON that finds the keys the
// file's shape (type file) does not have, at any depth of the known
// structure, each with its line. encoding/json drops them silently, so a
// typo ("permisions") would otherwise change nothing and say nothing. Keys
// match as encoding/json matches them (case-insensitively); the keys of a
// map (models, mcp, permissions) are the user's own and never unknown, but
// the values under them are checked; a value whose shape is free
// (json.RawMessage, interface{}) is not.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// unknownKey is one key the config's shape does not have: its dotted path
// ("tools.bash.timeout") and its 1-based line in the file.
type unknownKey struct {
	path string
	line int
}

// warning is the message shown for k in the file at path.
func (k unknownKey) warning(path string) string {
	return fmt.Sprintf("%s:%d: unknown key %q is ignored", path, k.line, k.path)
}

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// unknownKeys lists the keys of data (valid JSON) that shape does not
// have, in file order. Invalid JSON yields what was found before the error.
func unknownKeys(data []byte, shape reflect.Type) []unknownKey {
	w := &keyWalker{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	w.value(shape, "")
	return w.found
}

type keyWalker struct {
	data  []byte
	dec   *json.Decoder
	found []unknownKey
	bad   bool
}

// value reads one JSON value, checking it against t (nil: anything goes).
func (w *keyWalker) value(t reflect.Type, path string) {
	if w.bad {
		return
	}
	tok, err := w.dec.Token()
	if err != nil {
		w.bad = true
		return
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType || (t != nil && t.Kind() == reflect.Interface) {
		t = nil
	}
	switch tok {
	case json.Delim('{'):
		w.object(t, path)
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for !w.bad && w.dec.More() {
			w.value(elem, path)
		}
		w.end()
	}
}

func (w *keyWalker) object(t reflect.Type, path string) {
	for !w.bad && w.dec.More() {
		tok, err := w.dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			w.bad = true
			return
		}
		keyPath := key
		if path != "" {
			keyPath = path + "." + key
		}
		var next reflect.Type
		switch {
		case t == nil:
		case t.Kind() == reflect.Map:
			next = t.Elem()
		case t.Kind() == reflect.Struct:
			f, found := jsonField(t, key)
			if !found {
				w.found = append(w.found, unknownKey{path: keyPath, line: w.line()})
			}
			next = f
		}
		w.value(next, keyPath)
	}
	w.end()
}

// end reads the closing delimiter of an object or array.
func (w *keyWalker) end() {
	if w.bad {
		return
	}
	if _, err := w.dec.Token(); err != nil {
		w.bad = true
	}
}

// line is the line of the token just read.
func (w *keyWalker) line() int {
	off := int(w.dec.InputOffset())
	if off > len(w.data) {
		off = len(w.data)
	}
	return 1 + bytes.Count(w.data[:off], []byte("\n"))
}

// jsonField is the type of t's field that encoding/json would fill from
// key, looking into embedded structs; a field of the outer struct shadows
// one of an embedded struct of the same name.
func jsonField(t reflect.Type, key string) (reflect.Type, bool) {
	var embedded []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			embedded = append(embedded, f)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.EqualFold(name, key) {
			return f.Type, true
		}
	}
	for _, f := range embedded {
		et := f.Type
		if et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		if et.Kind() == reflect.Struct {
			if ft, ok := jsonField(et, key); ok {
				return ft, true
			}
		}
	}
	return nil, false
}
