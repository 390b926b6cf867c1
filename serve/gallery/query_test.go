package gallery

import (
	"errors"
	"strings"
	"testing"
)

func TestParseQueryAccepts(t *testing.T) {
	q, err := ParseQuery(strings.NewReader(`{"filters":[{"criteria":[{"filterType":10,"value":"python"},{"filterType":8,"value":"Microsoft.VisualStudio.Code"},{"filterType":12,"value":"4096"}],"pageNumber":2,"pageSize":50,"sortBy":0,"sortOrder":0}],"assetTypes":[],"flags":950}`))
	if err != nil {
		t.Fatal(err)
	}
	f := q.Filters[0]
	if q.Flags != 950 || f.PageNumber != 2 || f.PageSize != 50 || len(f.Criteria) != 3 || f.Criteria[0] != (Criterion{FilterSearchText, "python"}) {
		t.Errorf("parsed %+v", q)
	}
	q, err = ParseQuery(strings.NewReader(`{"filters":[{"criteria":[]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if f := q.Filters[0]; f.PageNumber != 1 || f.PageSize != DefaultPageSize {
		t.Errorf("defaults: page %d size %d", f.PageNumber, f.PageSize)
	}
}

func TestParseQueryRefuses(t *testing.T) {
	many := func(n int) string {
		c := make([]string, n)
		for i := range c {
			c[i] = `{"filterType":7,"value":"a.b"}`
		}
		return `{"filters":[{"criteria":[` + strings.Join(c, ",") + `]}]}`
	}
	tests := []struct {
		name, body, want string
	}{
		{"empty", ``, "the body is empty"},
		{"cut", `{"filters":[`, "ends in the middle"},
		{"not JSON", `filters=1`, "not an extensionquery JSON object"},
		{"array", `[]`, "the body is a JSON array; it must be an object"},
		{"unknown field", `{"filters":[{"criteria":[]}],"foo":1}`, `unknown field "foo"`},
		{"unknown filter field", `{"filters":[{"criteria":[],"pagesize2":1}]}`, `unknown field "pagesize2"`},
		{"trailing value", `{"filters":[{"criteria":[]}]} {}`, "more than one JSON value"},
		{"no filters", `{"flags":950}`, "no filters"},
		{"too many filters", `{"filters":[{},{},{},{},{}]}`, "5 filters; at most 4"},
		{"million page size", `{"filters":[{"criteria":[],"pageSize":1000000}]}`, "pageSize 1000000 is not between 1 and 1000"},
		{"negative page size", `{"filters":[{"criteria":[],"pageSize":-1}]}`, "pageSize -1"},
		{"huge page number", `{"filters":[{"criteria":[],"pageNumber":9007199254740991}]}`, "pageNumber"},
		{"page number overflowing int", `{"filters":[{"criteria":[],"pageNumber":1e30}]}`, "not an extensionquery JSON object"},
		{"fractional page size", `{"filters":[{"criteria":[],"pageSize":1.5}]}`, "filters.pageSize is a JSON number 1.5; it must be a whole number"},
		{"string page size", `{"filters":[{"criteria":[],"pageSize":"50"}]}`, "filters.pageSize is a JSON string; it must be a whole number"},
		{"number value", `{"filters":[{"criteria":[{"filterType":7,"value":5}]}]}`, "filters.criteria.value is a JSON number; it must be a string"},
		{"bad sort order", `{"filters":[{"criteria":[],"sortOrder":7}]}`, "sortOrder 7"},
		{"bad sort by", `{"filters":[{"criteria":[],"sortBy":-3}]}`, "sortBy -3"},
		{"negative flags", `{"filters":[{"criteria":[]}],"flags":-1}`, "flags -1"},
		{"flags too wide", `{"filters":[{"criteria":[]}],"flags":4294967296}`, "flags 4294967296"},
		{"criterion without type", `{"filters":[{"criteria":[{"value":"x"}]}]}`, "no filterType"},
		{"bad filter type", `{"filters":[{"criteria":[{"filterType":-4,"value":"x"}]}]}`, "filterType -4"},
		{"exclude flags not a number", `{"filters":[{"criteria":[{"filterType":12,"value":"x"}]}]}`, `ExcludeWithFlags value "x"`},
		{"long search", `{"filters":[{"criteria":[{"filterType":10,"value":"` + strings.Repeat("a", MaxSearchText+1) + `"}]}]}`, "search text is 1025 bytes"},
		{"many words", `{"filters":[{"criteria":[{"filterType":10,"value":"` + strings.Repeat("a ", MaxSearchWords+1) + `"}]}]}`, "17 words"},
		{"long value", `{"filters":[{"criteria":[{"filterType":7,"value":"` + strings.Repeat("a", 600) + `"}]}]}`, "at most 512"},
		{"too many criteria", many(MaxCriteria + 1), "1001 criteria"},
		{"too many asset types", `{"filters":[{}],"assetTypes":[` + strings.Repeat(`"a",`, MaxAssetTypes) + `"a"]}`, "65 asset types"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseQuery(strings.NewReader(tt.body))
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want ErrBadQuery saying %q", err, tt.want)
			}
		})
	}
	if _, err := ParseQuery(strings.NewReader(many(MaxCriteria))); err != nil {
		t.Errorf("a batch of MaxCriteria names: %v", err)
	}
}

// TestParseQueryReadsBounded checks that ParseQuery reads no more than
// MaxQueryBytes+1 of an endless body and says it is too large.
func TestParseQueryReadsBounded(t *testing.T) {
	r := &countingReader{}
	_, err := ParseQuery(r)
	if !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrBadQuery) {
		t.Fatalf("endless body: %v, want ErrTooLarge", err)
	}
	if r.n > MaxQueryBytes+1 {
		t.Errorf("read %d bytes of an endless body, want at most %d", r.n, MaxQueryBytes+1)
	}
}

type countingReader struct{ n int }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	c.n += len(p)
	return len(p), nil
}
