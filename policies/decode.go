package policies

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/airvsx/airvsx/internal/safefile"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Limits on the shape of the YAML, checked on the token stream before the
// parser builds a tree, so that a hostile file costs time and memory linear
// in its (capped) size.
const (
	maxFlowDepth    = 10  // nested [ ] and { }; a policy in full flow style needs 4
	maxIndent       = 256 // column of a line's first token in block style
	maxEntriesOnRow = 8   // "- - - x": block sequences opened on one line
)

var bom = []byte("\ufeff")

// Load reads and parses the policy file at path (see Parse).
func Load(path string) (*Policy, error) {
	f, _, err := safefile.Open(path, -1) // no FIFO or device; Parse reports the size
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read at most one byte more than allowed, so Parse sees an oversized
	// file without Load reading all of it.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes and validates a policy file; name is used in messages. It
// rejects, each as an *Error joined with the others by errors.Join:
// files over MaxFileBytes, more than one YAML document, anchors, aliases,
// merge keys, tags and directives, nesting deeper than 10 flow levels or
// indentation past column 256, duplicate keys, unknown fields, values of
// the wrong YAML type, and every semantic problem listed in the package
// documentation. Structural problems stop decoding at the first one;
// semantic problems are all reported.
func Parse(name string, data []byte) (*Policy, error) {
	if len(data) > MaxFileBytes {
		return nil, &Error{File: name, Msg: fmt.Sprintf("file is larger than %d bytes", MaxFileBytes)}
	}
	doc, err := decode(name, bytes.TrimPrefix(data, bom))
	if err != nil {
		return nil, err
	}
	p, err := doc.validate(name)
	if err != nil {
		return nil, err
	}
	p.name = name
	p.raw = bytes.Clone(data)
	return p, nil
}

func decode(name string, data []byte) (*rawDoc, error) {
	if err := prescan(name, data); err != nil {
		return nil, err
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, yamlError(name, err)
	}
	if len(f.Docs) > 1 {
		tk := f.Docs[1].Start
		e := &Error{File: name, Msg: "more than one YAML document"}
		if tk != nil {
			e.Line, e.Column = tk.Position.Line, tk.Position.Column
		}
		return nil, e
	}
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		return nil, &Error{File: name, Msg: "empty policy (want at least version: 1 and extensions)"}
	}
	body := f.Docs[0].Body
	if _, ok := body.(*ast.MappingNode); !ok {
		return nil, nodeError(name, body, "want a mapping of policy fields, have "+kind(body))
	}
	var doc rawDoc
	if err := yaml.NodeToValue(body, &doc, yaml.Strict()); err != nil {
		return nil, yamlError(name, err)
	}
	return &doc, nil
}

// prescan walks the token stream and refuses what a policy never needs and
// what could make the parser or decoder costly.
func prescan(name string, data []byte) error {
	depth, line, onRow := 0, 0, 0
	for _, tk := range lexer.Tokenize(string(data)) {
		fail := func(msg string) error {
			return &Error{File: name, Line: tk.Position.Line, Column: tk.Position.Column, Msg: msg}
		}
		if tk.Position.Line != line {
			line, onRow = tk.Position.Line, 0
			if depth == 0 && tk.Type != token.CommentType && tk.Position.Column > maxIndent {
				return fail(fmt.Sprintf("indented past column %d", maxIndent))
			}
		}
		switch tk.Type {
		case token.AnchorType, token.AliasType:
			return fail("anchors and aliases (&, *) are not allowed")
		case token.MergeKeyType:
			return fail("merge keys (<<) are not allowed")
		case token.TagType:
			return fail("tags (!) are not allowed")
		case token.DirectiveType:
			return fail("directives (%) are not allowed")
		case token.SequenceStartType, token.MappingStartType:
			if depth++; depth > maxFlowDepth {
				return fail(fmt.Sprintf("nested deeper than %d levels", maxFlowDepth))
			}
		case token.SequenceEndType, token.MappingEndType:
			depth = max(depth-1, 0)
		case token.SequenceEntryType:
			if onRow++; onRow > maxEntriesOnRow {
				return fail(fmt.Sprintf("more than %d sequences opened on one line", maxEntriesOnRow))
			}
		}
	}
	return nil
}

// yamlError turns an error from the YAML library into an *Error with the
// position it carries.
func yamlError(name string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		e := &Error{File: name, Msg: ye.GetMessage()}
		if tk := ye.GetToken(); tk != nil {
			e.Line, e.Column = tk.Position.Line, tk.Position.Column
		}
		return e
	}
	return &Error{File: name, Msg: err.Error()}
}

// decodeError is what the field decoders below return; goccy passes it
// through and yamlError reads its position.
func decodeError(n ast.Node, msg string) error {
	return &yaml.SyntaxError{Message: msg, Token: n.GetToken()}
}

func nodeError(name string, n ast.Node, msg string) *Error {
	e := &Error{File: name, Msg: msg}
	if tk := n.GetToken(); tk != nil {
		e.Line, e.Column = tk.Position.Line, tk.Position.Column
	}
	return e
}

func kind(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.NullNode:
		return "null"
	case *ast.StringNode:
		return "a string"
	case *ast.LiteralNode:
		return "a block scalar (| or >)"
	case *ast.IntegerNode:
		return "an integer"
	case *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	}
	return n.Type().String()
}

// pos is where a value was written; zero when it was not.
type pos struct{ line, col int }

func posOf(n ast.Node) pos {
	// A block mapping's own token is its first ":"; point at its first key.
	if m, ok := n.(*ast.MappingNode); ok && !m.IsFlowStyle && len(m.Values) > 0 {
		n = m.Values[0].Key
	}
	tk := n.GetToken()
	if tk == nil {
		return pos{}
	}
	return pos{tk.Position.Line, tk.Position.Column}
}

// The raw* types mirror the file one to one; their yaml tags are the field
// names (schema_test.go checks them against schema.json). Each value keeps
// its position so validation can point at it. A field written as null
// counts as absent.
type rawDoc struct {
	Version                  yInt                           `yaml:"version"`
	Upstream                 yStr                           `yaml:"upstream"`
	Editor                   yStr                           `yaml:"editor"`
	Platforms                yList[yStr, *yStr]             `yaml:"platforms"`
	Extensions               yList[rawRule, *rawRule]       `yaml:"extensions"`
	Exclude                  yList[yStr, *yStr]             `yaml:"exclude"`
	Dependencies             yBool                          `yaml:"dependencies"`
	RequireUpstreamSignature yBool                          `yaml:"requireUpstreamSignature"`
	MaxVsixBytes             yInt                           `yaml:"maxVsixBytes"`
	Capabilities             yList[rawCapRule, *rawCapRule] `yaml:"capabilities"`
	Catalog                  rawCatalog                     `yaml:"catalog"`
	Control                  rawControl                     `yaml:"control"`
}

type rawRule struct {
	ID         yStr    `yaml:"id"`
	Versions   yStr    `yaml:"versions"`
	Latest     yLatest `yaml:"latest"`
	PreRelease yBool   `yaml:"preRelease"`
	at         pos
}

func (r *rawRule) UnmarshalYAML(n ast.Node) error {
	type plain rawRule
	return decodeMapping(n, (*plain)(r), &r.at)
}

type rawCapRule struct {
	ID       yStr               `yaml:"id"`
	Versions yStr               `yaml:"versions"`
	Grant    yList[yStr, *yStr] `yaml:"grant"`
	Declare  yList[yStr, *yStr] `yaml:"declare"`
	Hosts    yList[yStr, *yStr] `yaml:"hosts"`
	Programs yList[yStr, *yStr] `yaml:"programs"`
	at       pos
}

func (r *rawCapRule) UnmarshalYAML(n ast.Node) error {
	type plain rawCapRule
	return decodeMapping(n, (*plain)(r), &r.at)
}

type rawCatalog struct {
	Expires yStr `yaml:"expires"`
	at      pos
}

func (c *rawCatalog) UnmarshalYAML(n ast.Node) error {
	type plain rawCatalog
	return decodeMapping(n, (*plain)(c), &c.at)
}

func decodeMapping(n ast.Node, v any, at *pos) error {
	if _, ok := n.(*ast.MappingNode); !ok {
		return decodeError(n, "want a mapping, have "+kind(n))
	}
	*at = posOf(n)
	return yaml.NodeToValue(n, v, yaml.Strict())
}

// scalar is a decoded value and where it stands; set tells a field that was
// written from one left out (or written as null).
type scalar[T any] struct {
	v   T
	at  pos
	set bool
}

// decoded records v as the value written at n.
func (s *scalar[T]) decoded(n ast.Node, v T) error {
	s.v, s.at, s.set = v, posOf(n), true
	return nil
}

// yStr is a string. Any single-line scalar is taken as written (so
// "versions: 1.10" keeps its zero); lists, mappings and block scalars are
// refused.
type yStr struct{ scalar[string] }

func (s *yStr) UnmarshalYAML(n ast.Node) error {
	switch n := n.(type) {
	case *ast.StringNode:
		return s.decoded(n, n.Value)
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return s.decoded(n, n.GetToken().Value)
	}
	return decodeError(n, "want a string, have "+kind(n))
}

// yInt is an integer written as one.
type yInt struct{ scalar[int64] }

func (i *yInt) UnmarshalYAML(n ast.Node) error {
	in, ok := n.(*ast.IntegerNode)
	if !ok {
		if s, ok := n.(*ast.StringNode); ok {
			return decodeError(n, fmt.Sprintf("want an integer, have %q", s.Value))
		}
		return decodeError(n, "want an integer, have "+kind(n))
	}
	switch v := in.Value.(type) {
	case int64:
		return i.decoded(n, v)
	case uint64:
		if v <= 1<<63-1 {
			return i.decoded(n, int64(v))
		}
	}
	return decodeError(n, "integer out of range")
}

// yBool is true or false, written as such.
type yBool struct{ scalar[bool] }

func (b *yBool) UnmarshalYAML(n ast.Node) error {
	bn, ok := n.(*ast.BoolNode)
	if !ok {
		return decodeError(n, "want true or false, have "+kind(n))
	}
	return b.decoded(n, bn.Value)
}

// yLatest is a positive integer or "all"; range checks are validation's.
type yLatest struct {
	n   int64
	all bool
	at  pos
	set bool
}

func (l *yLatest) UnmarshalYAML(n ast.Node) error {
	if s, ok := n.(*ast.StringNode); ok {
		if s.Value != "all" {
			return decodeError(n, fmt.Sprintf("want a positive integer or all, have %q", s.Value))
		}
		l.all = true
	} else {
		var i yInt
		if err := i.UnmarshalYAML(n); err != nil {
			return decodeError(n, "want a positive integer or all, have "+kind(n))
		}
		l.n = i.v
	}
	l.at, l.set = posOf(n), true
	return nil
}

// yList is a list of T; null items are refused.
type yList[T any, P interface {
	*T
	UnmarshalYAML(ast.Node) error
}] struct{ scalar[[]T] }

func (l *yList[T, P]) UnmarshalYAML(n ast.Node) error {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return decodeError(n, "want a list, have "+kind(n))
	}
	v := make([]T, len(seq.Values))
	for i, item := range seq.Values {
		if _, null := item.(*ast.NullNode); null {
			return decodeError(item, "empty list item")
		}
		if err := P(&v[i]).UnmarshalYAML(item); err != nil {
			return err
		}
	}
	return l.decoded(n, v)
}
