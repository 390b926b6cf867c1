// Package strictjson decodes the JSON files airvsx reads from places
// anything could have written (catalogs, manifests, index.json,
// installed.json, the state directory) strictly: exactly one value, no
// field the Go type does not have, nothing after the value but white
// space, and, when read from a stream, no more than a size cap. Marshal
// is the one encoding of the files airvsx writes for people to read too
// (the catalog, installed.json).
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Unmarshal decodes data, which must hold exactly one JSON value, into v.
// An object field v has no place for and anything after the value but
// white space are errors.
func Unmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// Read is Unmarshal of what r holds, which must be at most max bytes;
// it reads no more than max+1.
func Read(r io.Reader, max int64, v any) error {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return err
	}
	if int64(len(data)) > max {
		return fmt.Errorf("larger than %d bytes", max)
	}
	return Unmarshal(data, v)
}

// Marshal returns v as indented JSON (two spaces) with a final newline and
// without HTML escaping, so that "<", ">" and "&" stay as they are. The
// same value always gives the same bytes.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
