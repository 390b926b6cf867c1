package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/airvsx/airvsx/hostlaunch/host"
)

// OpenDocument opens doc in the hosts (a file, its language guessed from
// its name when doc.LanguageID is "", or a new untitled document of a
// language), which activates the onLanguage extensions; the last document
// opened is the active editor's. It returns the document, the extensions
// it activated and the events it caused.
func (s *Session) OpenDocument(ctx context.Context, doc host.Document) (host.DocumentInfo, []string, []host.Event, error) {
	params, _ := json.Marshal(doc)
	res, events, err := s.pool.Request(ctx, "documents/open", params)
	if err != nil {
		return host.DocumentInfo{}, nil, events, err
	}
	var r struct {
		Activated []string          `json:"activated"`
		Document  host.DocumentInfo `json:"document"`
	}
	json.Unmarshal(res, &r)
	return r.Document, r.Activated, events, nil
}

// Format asks the formatters for the document uri and applies their
// edits (the best formatter's: one answer, as the editor takes). It
// returns the events it caused.
func (s *Session) Format(ctx context.Context, uri string) ([]host.Event, error) {
	q, _ := json.Marshal(map[string]any{"kind": "formatting", "uri": uri})
	res, events, err := s.pool.Request(ctx, "provide", q)
	if err != nil {
		return events, err
	}
	var r struct {
		Items []struct {
			Range     json.RawMessage `json:"range"`
			NewText   string          `json:"newText"`
			Extension string          `json:"extension"`
		} `json:"items"`
		Providers int `json:"providers"`
		Errors    []struct {
			Extension, Message string
		} `json:"errors"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return events, fmt.Errorf("format %s: %w", uri, err)
	}
	if len(r.Errors) > 0 && len(r.Items) == 0 {
		return events, fmt.Errorf("format %s: %s: %s", uri, r.Errors[0].Extension, r.Errors[0].Message)
	}
	if r.Providers == 0 {
		return events, fmt.Errorf("format %s: no installed extension formats this document's language", uri)
	}
	var changes []map[string]any
	for _, it := range r.Items {
		if it.Extension != r.Items[0].Extension {
			continue
		}
		changes = append(changes, map[string]any{"range": it.Range, "text": it.NewText})
	}
	if len(changes) == 0 {
		return events, nil
	}
	c, _ := json.Marshal(map[string]any{"uri": uri, "changes": changes})
	_, more, err := s.pool.Request(ctx, "documents/change", c)
	return append(events, more...), err
}

// SaveDirty saves every changed document (written back through the
// workspace broker); it returns their URIs and the events it caused. A
// document that cannot be saved (read-only) is an error.
func (s *Session) SaveDirty(ctx context.Context) ([]string, []host.Event, error) {
	res, events, err := s.pool.Request(ctx, "documents/list", nil)
	if err != nil {
		return nil, events, err
	}
	var l struct {
		Documents []host.DocumentInfo `json:"documents"`
	}
	json.Unmarshal(res, &l)
	var saved []string
	for _, d := range l.Documents {
		if !d.IsDirty {
			continue
		}
		q, _ := json.Marshal(map[string]string{"uri": d.URI})
		res, more, err := s.pool.Request(ctx, "documents/save", q)
		events = append(events, more...)
		if err != nil {
			return saved, events, err
		}
		var info host.DocumentInfo
		json.Unmarshal(res, &info)
		if info.Saved == nil || !*info.Saved {
			return saved, events, fmt.Errorf("save %s: the document cannot be saved (read-only)", d.URI)
		}
		saved = append(saved, d.URI)
	}
	return saved, events, nil
}
