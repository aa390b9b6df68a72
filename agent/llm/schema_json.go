package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// object is a JSON object that keeps its key order.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// val is get without the presence flag, for type switches.
func (o *object) val(k string) any { return o.vals[k] }

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) prepend(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append([]string{k}, o.keys...)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	o.keys = slices.DeleteFunc(o.keys, func(s string) bool { return s == k })
}

// decodeOrdered parses JSON into *object, []any, string, json.Number
// (numbers keep their exact text), bool and nil. Duplicate keys: the last
// value wins, as with encoding/json.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the schema")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxSchemaNesting {
		return nil, fmt.Errorf("nested deeper than %d levels", maxSchemaNesting)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	switch d {
	case '{':
		o := newObject()
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, ok := kt.(string)
			if !ok {
				return nil, fmt.Errorf("object key is %T, not a string", kt)
			}
			v, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			o.set(k, v)
		}
		if _, err := dec.Token(); err != nil { // '}'
			return nil, err
		}
		return o, nil
	case '[':
		list := []any{}
		for dec.More() {
			v, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		if _, err := dec.Token(); err != nil { // ']'
			return nil, err
		}
		return list, nil
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// encodeOrdered writes what decodeOrdered produces, and the sanitizer's
// own additions.
func encodeOrdered(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case *object:
		buf.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			encodeString(buf, k)
			buf.WriteByte(':')
			encodeOrdered(buf, v.vals[k])
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			encodeOrdered(buf, e)
		}
		buf.WriteByte(']')
	case string:
		encodeString(buf, v)
	case json.Number:
		buf.WriteString(string(v))
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	default:
		buf.WriteString("null")
	}
}

func encodeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false) // descriptions read better with < > & intact
	_ = enc.Encode(s)        // a string always encodes
	buf.Truncate(buf.Len() - 1)
}
