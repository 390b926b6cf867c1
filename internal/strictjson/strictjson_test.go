package strictjson_test

import (
	"strings"
	"testing"

	"github.com/airvsx/airvsx/internal/strictjson"
)

type doc struct {
	A int      `json:"a"`
	B []string `json:"b,omitempty"`
}

func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		max     int64
		wantErr string // "" for success
	}{
		{"one object", `{"a": 1, "b": ["x"]}`, 100, ""},
		{"white space after", "{\"a\": 1}\n\t \n", 100, ""},
		{"exactly the cap", `{"a":1}`, 7, ""},
		{"over the cap", `{"a":10}`, 7, "larger than 7 bytes"},
		{"unknown field", `{"a": 1, "c": 2}`, 100, `unknown field "c"`},
		{"a second value", `{"a": 1}{}`, 100, "data after the JSON value"},
		{"a stray brace", `{"a": 1}}`, 100, "data after the JSON value"},
		{"a stray bracket", `{"a": 1}]`, 100, "data after the JSON value"},
		{"truncated", `{"a": 1`, 100, "unexpected EOF"},
		{"empty", ``, 100, "EOF"},
		{"wrong type", `{"a": "1"}`, 100, "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := strictjson.Read(strings.NewReader(tt.in), tt.max, &d)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Read(%q) = %v; want nil", tt.in, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Read(%q) = %v; want an error containing %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

func TestMarshal(t *testing.T) {
	b, err := strictjson.Marshal(doc{A: 1, B: []string{"<a & b>"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": 1,\n  \"b\": [\n    \"<a & b>\"\n  ]\n}\n"
	if string(b) != want {
		t.Errorf("Marshal = %q; want %q", b, want)
	}
	var d doc
	if err := strictjson.Read(strings.NewReader(string(b)), int64(len(b)), &d); err != nil {
		t.Errorf("Read(Marshal) = %v; want the value back", err)
	}
}
