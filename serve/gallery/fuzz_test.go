package gallery

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseQuery feeds ParseQuery hostile bodies: it must refuse them
// with ErrBadQuery or return a query within the bounds, and Query must
// answer any query it accepts with one well-formed response, one result
// per filter, each with a TotalCount, and a page no larger than asked.
func FuzzParseQuery(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "vscode", "*.json"))
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		`{"filters":[{"criteria":[{"filterType":10,"value":"publisher:\"a"}],"pageSize":1000000}]}`,
		`{"filters":[{"criteria":[{"filterType":8,"value":"linux-x64"}],"pageNumber":3,"pageSize":2,"sortBy":1,"sortOrder":1}],"flags":65536}`,
		`{"filters":[{"criteria":[{"filterType":1,"value":"RUST"},{"filterType":5,"value":"Formatters"}]}],"flags":511}`,
		`{"filters":[{}],"flags":-1}`,
		`{"filters":null}`,
		`{"filters":[{"criteria":[{"filterType":10,"value":"\u2028\"\\ \ud800"}]}]}`,
	} {
		f.Add([]byte(s))
	}
	ix := New(testCatalog())
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := ParseQuery(strings.NewReader(string(data)))
		if err != nil {
			if !errors.Is(err, ErrBadQuery) {
				t.Fatalf("error not wrapping ErrBadQuery: %v", err)
			}
			return
		}
		if len(q.Filters) == 0 || len(q.Filters) > MaxFilters {
			t.Fatalf("%d filters accepted", len(q.Filters))
		}
		for _, fl := range q.Filters {
			if fl.PageSize < 1 || fl.PageSize > MaxPageSize || fl.PageNumber < 1 || fl.PageNumber > MaxPageNumber || len(fl.Criteria) > MaxCriteria {
				t.Fatalf("filter out of bounds accepted: %+v", fl)
			}
		}
		b, err := ix.Query(q, testBase)
		if err != nil {
			t.Fatalf("Query: %v", err)
		}
		var r response
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("response is not JSON: %v\n%s", err, b)
		}
		if len(r.Results) != len(q.Filters) {
			t.Fatalf("%d results for %d filters", len(r.Results), len(q.Filters))
		}
		for i, res := range r.Results {
			if len(res.Extensions) > q.Filters[i].PageSize {
				t.Fatalf("%d extensions on a page of %d", len(res.Extensions), q.Filters[i].PageSize)
			}
			if len(res.ResultMetadata) != 1 || len(res.ResultMetadata[0].MetadataItems) != 1 || res.ResultMetadata[0].MetadataItems[0].Name != "TotalCount" {
				t.Fatalf("result %d has no TotalCount: %s", i, b)
			}
		}
	})
}
