package gallery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The bounds ParseQuery holds a query to. A query outside them is
// refused, not clamped: a client asking for a million results is told so.
const (
	// MaxQueryBytes is the largest request body ParseQuery reads: room for
	// a batch of MaxCriteria extension IDs, which is what VS Code sends
	// when it checks the installed extensions for updates.
	MaxQueryBytes = 128 << 10
	// MaxFilters is how many filters one query may hold; each is
	// answered with one result. VS Code sends one.
	MaxFilters = 4
	// MaxCriteria is how many criteria one filter may hold.
	MaxCriteria = 1000
	// MaxPageSize is the largest page. VS Code asks for 50 when it
	// searches and for as many as it names when it names extensions.
	MaxPageSize = 1000
	// MaxPageNumber is the highest page number.
	MaxPageNumber = 100000
	// MaxSearchText is the longest search text in bytes (VS Code cuts
	// its own at 200 characters).
	MaxSearchText = 1024
	// MaxSearchWords is how many words a search text may hold.
	MaxSearchWords = 16
	// MaxAssetTypes is how many asset types a query may name.
	MaxAssetTypes = 64
	// DefaultPageSize is the page size of a filter that gives none (0).
	DefaultPageSize = 10
)

// ErrBadQuery is wrapped by every error ParseQuery returns: the query is
// the client's mistake (answer 400).
var ErrBadQuery = errors.New("bad gallery query")

// ErrTooLarge is wrapped, with ErrBadQuery, by the error for a body
// larger than MaxQueryBytes (answer 413).
var ErrTooLarge = errors.New("gallery query too large")

// FilterType is the type of a criterion, as the gallery numbers them.
type FilterType int

// The filter types VS Code sends.
const (
	FilterTag              FilterType = 1
	FilterExtensionID      FilterType = 4
	FilterCategory         FilterType = 5
	FilterExtensionName    FilterType = 7
	FilterTarget           FilterType = 8
	FilterFeatured         FilterType = 9
	FilterSearchText       FilterType = 10
	FilterExcludeWithFlags FilterType = 12
)

// Flags select what a response holds, as the gallery numbers them.
type Flags uint32

// The flags this package reads; the others are accepted and ignored.
const (
	FlagIncludeVersions          Flags = 0x1
	FlagIncludeFiles             Flags = 0x2
	FlagIncludeCategoryAndTags   Flags = 0x4
	FlagIncludeVersionProperties Flags = 0x10
	FlagExcludeNonValidated      Flags = 0x20
	FlagIncludeInstallTargets    Flags = 0x40
	FlagIncludeAssetURI          Flags = 0x80
	FlagIncludeStatistics        Flags = 0x100
	FlagLatestVersionOnly        Flags = 0x200
	FlagLatestPreAndStableOnly   Flags = 0x10000
)

// SortBy is a filter's sort order, as the gallery numbers them.
type SortBy int

// The sort orders.
const (
	SortRelevance      SortBy = 0
	SortLastUpdated    SortBy = 1
	SortTitle          SortBy = 2
	SortPublisher      SortBy = 3
	SortInstallCount   SortBy = 4
	SortPublishedDate  SortBy = 5
	SortAverageRating  SortBy = 6
	SortPublishedDate2 SortBy = 10 // VS Code's SortBy.PublishedDate
	SortWeightedRating SortBy = 12
)

// SortOrder is a filter's direction: 0 the order's default, 1 ascending,
// 2 descending.
type SortOrder int

// The directions.
const (
	SortDefault    SortOrder = 0
	SortAscending  SortOrder = 1
	SortDescending SortOrder = 2
)

// Criterion is one criterion of a filter.
type Criterion struct {
	Type  FilterType
	Value string
}

// Filter is one filter of a query: criteria, a page and an order.
type Filter struct {
	Criteria   []Criterion
	PageNumber int // from 1
	PageSize   int // 1..MaxPageSize
	SortBy     SortBy
	SortOrder  SortOrder
}

// Query is a parsed, bounded extensionquery request.
type Query struct {
	Filters    []Filter
	AssetTypes []string
	Flags      Flags
}

// wire types: exactly the fields VS Code's Query.raw has
// (extensionGalleryService.ts), pointers where absence matters.
type rawCriterion struct {
	FilterType *int    `json:"filterType"`
	Value      *string `json:"value"`
}

type rawFilter struct {
	Criteria   []rawCriterion `json:"criteria"`
	PageNumber *int           `json:"pageNumber"`
	PageSize   *int           `json:"pageSize"`
	SortBy     *int           `json:"sortBy"`
	SortOrder  *int           `json:"sortOrder"`
}

type rawQuery struct {
	Filters    []rawFilter `json:"filters"`
	AssetTypes []string    `json:"assetTypes"`
	Flags      *int64      `json:"flags"`
}

// ParseQuery reads an extensionquery request body from r: at most
// MaxQueryBytes (it reads one byte more to tell), one JSON object with
// only the fields VS Code sends, nothing after it, and every count and
// number within the bounds above. Errors wrap ErrBadQuery (and
// ErrTooLarge for a body over the cap) and say what to change.
func ParseQuery(r io.Reader) (*Query, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxQueryBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading the request body: %w", ErrBadQuery, err)
	}
	if len(data) > MaxQueryBytes {
		return nil, fmt.Errorf("%w: %w: the request body is larger than %d bytes; ask for fewer extensions at a time", ErrBadQuery, ErrTooLarge, MaxQueryBytes)
	}
	var raw rawQuery
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, badf("the body is not an extensionquery JSON object: %s", jsonProblem(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badf("the body holds more than one JSON value; send exactly one object")
	}
	return raw.check()
}

// jsonProblem says what a decoding error means in the request's own
// terms, without the names of this package's types.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		want := "a number"
		switch te.Type.Kind().String() {
		case "string":
			want = "a string"
		case "slice":
			want = "an array"
		case "struct":
			want = "an object"
		case "int", "int64":
			want = "a whole number"
		}
		field := te.Field
		if field == "" {
			field = "the body"
		}
		return fmt.Sprintf("%s is a JSON %s; it must be %s", field, te.Value, want)
	case errors.As(err, &se):
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	case errors.Is(err, io.EOF):
		return "the body is empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the body ends in the middle of the JSON value"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func badf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadQuery, fmt.Sprintf(format, args...))
}

func (raw *rawQuery) check() (*Query, error) {
	q := &Query{}
	if raw.Flags != nil {
		if *raw.Flags < 0 || *raw.Flags > 0xFFFFFFFF {
			return nil, badf("flags %d is not a 32-bit set of flags", *raw.Flags)
		}
		q.Flags = Flags(*raw.Flags)
	}
	if len(raw.AssetTypes) > MaxAssetTypes {
		return nil, badf("%d asset types; at most %d", len(raw.AssetTypes), MaxAssetTypes)
	}
	q.AssetTypes = raw.AssetTypes
	if len(raw.Filters) == 0 {
		return nil, badf(`no filters; send "filters":[{"criteria":[...],"pageNumber":1,"pageSize":50}]`)
	}
	if len(raw.Filters) > MaxFilters {
		return nil, badf("%d filters; at most %d", len(raw.Filters), MaxFilters)
	}
	for i, rf := range raw.Filters {
		f, err := rf.check()
		if err != nil {
			return nil, fmt.Errorf("%w: filters[%d].%w", ErrBadQuery, i, err)
		}
		q.Filters = append(q.Filters, f)
	}
	return q, nil
}

func (rf *rawFilter) check() (Filter, error) {
	f := Filter{PageNumber: 1, PageSize: DefaultPageSize}
	if len(rf.Criteria) > MaxCriteria {
		return f, fmt.Errorf("%d criteria; at most %d: ask for fewer extensions at a time", len(rf.Criteria), MaxCriteria)
	}
	if p := rf.PageNumber; p != nil && *p != 0 {
		if *p < 0 || *p > MaxPageNumber {
			return f, fmt.Errorf("pageNumber %d is not between 1 and %d", *p, MaxPageNumber)
		}
		f.PageNumber = *p
	}
	if p := rf.PageSize; p != nil && *p != 0 {
		if *p < 0 || *p > MaxPageSize {
			return f, fmt.Errorf("pageSize %d is not between 1 and %d", *p, MaxPageSize)
		}
		f.PageSize = *p
	}
	if s := rf.SortBy; s != nil {
		if *s < 0 || *s > 100 {
			return f, fmt.Errorf("sortBy %d is not a sort order (0 relevance, 1 last updated, 2 title, 3 publisher, 4 installs, ...)", *s)
		}
		f.SortBy = SortBy(*s)
	}
	if s := rf.SortOrder; s != nil {
		if *s < 0 || *s > 2 {
			return f, fmt.Errorf("sortOrder %d is not 0 (default), 1 (ascending) or 2 (descending)", *s)
		}
		f.SortOrder = SortOrder(*s)
	}
	f.Criteria = make([]Criterion, 0, len(rf.Criteria))
	for i, rc := range rf.Criteria {
		c, err := rc.check()
		if err != nil {
			return f, fmt.Errorf("criteria[%d]: %w", i, err)
		}
		f.Criteria = append(f.Criteria, c)
	}
	return f, nil
}

func (rc *rawCriterion) check() (Criterion, error) {
	if rc.FilterType == nil {
		return Criterion{}, fmt.Errorf("a criterion has no filterType")
	}
	c := Criterion{Type: FilterType(*rc.FilterType)}
	if rc.Value != nil {
		c.Value = *rc.Value
	}
	if c.Type < 0 || c.Type > 100 {
		return c, fmt.Errorf("filterType %d is not a filter type (1 tag, 4 extension ID, 5 category, 7 extension name, 8 target, 10 search text, 12 exclude flags)", c.Type)
	}
	switch c.Type {
	case FilterSearchText:
		if len(c.Value) > MaxSearchText {
			return c, fmt.Errorf("the search text is %d bytes long; at most %d", len(c.Value), MaxSearchText)
		}
		if n := len(strings.Fields(c.Value)); n > MaxSearchWords {
			return c, fmt.Errorf("the search text has %d words; at most %d", n, MaxSearchWords)
		}
	case FilterExcludeWithFlags:
		if _, err := strconv.ParseUint(c.Value, 10, 32); err != nil {
			return c, fmt.Errorf("ExcludeWithFlags value %q is not a number of flags (VS Code sends \"4096\")", c.Value)
		}
	default:
		if len(c.Value) > 512 {
			return c, fmt.Errorf("a criterion value of filterType %d is %d bytes long; at most 512", c.Type, len(c.Value))
		}
	}
	return c, nil
}
