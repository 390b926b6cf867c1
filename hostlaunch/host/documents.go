package host

// Documents and language features, for an editor or the driver: the
// launcher opens, changes, saves and closes documents in the host, asks
// its providers (completion, hover, ...) and reads diagnostics and tree
// views. The JSON shapes are the host's (js/documents.js,
// js/languages.js, js/window.js) and are documented in docs/driver.md.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/internal/safefile"
)

// Document is a document to open: URI (any scheme) or Path (a file),
// LanguageID ("" guesses from the name) and Text (nil reads the file
// through the workspace broker).
type Document struct {
	URI        string  `json:"uri,omitempty"`
	Path       string  `json:"path,omitempty"`
	LanguageID string  `json:"languageId,omitempty"`
	Text       *string `json:"text,omitempty"`
	// Show makes it the active editor's document (the default, nil).
	Show *bool `json:"show,omitempty"`
}

// DocumentInfo is an open document as the host has it.
type DocumentInfo struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	IsDirty    bool   `json:"isDirty"`
	LineCount  int    `json:"lineCount"`
	// Text is set by documents/get only.
	Text string `json:"text,omitempty"`
	// Saved is set by documents/save: false when the document could not
	// be saved (read-only, closed).
	Saved *bool `json:"saved,omitempty"`
}

// Requests answers: the methods Request passes to the host, with the
// params each takes.
var Requests = map[string]string{
	"documents/open":     "Document",
	"documents/change":   "{uri, version?, text} or {uri, version?, changes: [{range, text}]}",
	"documents/save":     "{uri}",
	"documents/close":    "{uri}",
	"documents/get":      "{uri}",
	"documents/list":     "{}",
	"documents/show":     "{uri}",
	"documents/language": "{uri}",
	"provide":            "{kind, uri, position?, range?, options?, triggerCharacter?, ch? (onTypeFormatting), newName?, only?, includeDeclaration?}",
	"diagnostics":        "{uri?}",
	"tree/children":      "{view, handle?}",
	"tree/views":         "{}",
}

// Request sends one of Requests to the host and decodes its answer into
// v (a pointer, or nil); it returns the events the request caused.
// documents/open activates the extensions waiting for the document's
// language first.
func (h *Host) Request(ctx context.Context, method string, params json.RawMessage, v any) ([]Event, error) {
	params, err := checkRequest(method, params)
	if err != nil {
		return nil, err
	}
	var events []Event
	var lang string
	var activated []string // by documents/open
	if method == "documents/open" {
		var d Document
		if err := json.Unmarshal(params, &d); err != nil {
			return nil, fmt.Errorf("documents/open: %w", err)
		}
		if lang, err = h.Language(ctx, d); err != nil {
			return nil, err
		}
		if err := readText(&d); err != nil {
			return nil, err
		}
		d.LanguageID = lang
		params, _ = json.Marshal(d)
		waiting := h.waiting("onLanguage:" + lang)
		if scheme, _, ok := strings.Cut(d.URI, ":"); ok && scheme != "file" {
			waiting = append(waiting, h.waiting("onFileSystem:"+scheme)...)
		}
		events, err = h.activateAll(ctx, waiting, nil)
		if err != nil {
			return events, fmt.Errorf("open %s document: %w", lang, err)
		}
		for _, e := range waiting {
			activated = append(activated, e.ID)
		}
	}
	// A tree view's extension activates when the view is asked for
	// (onView): tree/views asks for them all.
	if method == "tree/children" || method == "tree/views" {
		var q struct {
			View string `json:"view"`
		}
		json.Unmarshal(params, &q)
		var waiting []*Extension
		for i := range h.opts.Extensions {
			e := &h.opts.Extensions[i]
			if h.isActivated(e.ID) {
				continue
			}
			for _, ev := range e.ActivationEvents {
				if v, ok := strings.CutPrefix(ev, "onView:"); ok && (method == "tree/views" || v == q.View) {
					waiting = append(waiting, e)
					break
				}
			}
		}
		if events, err = h.activateAll(ctx, waiting, nil); err != nil {
			return events, fmt.Errorf("%s: %w", method, err)
		}
	}
	var raw json.RawMessage
	more, err := h.call(ctx, method, params, &raw)
	events = append(events, more...)
	if err == nil && method == "documents/open" {
		// The extensions the launcher activated for the document, with
		// those the host did.
		var r map[string]json.RawMessage
		if json.Unmarshal(raw, &r) == nil {
			var host []string
			json.Unmarshal(r["activated"], &host)
			for _, id := range host {
				if !slices.Contains(activated, id) {
					activated = append(activated, id)
				}
			}
			if activated == nil {
				activated = []string{}
			}
			r["activated"], _ = json.Marshal(activated)
			raw, _ = json.Marshal(r)
		}
	}
	if err == nil && v != nil {
		if uerr := json.Unmarshal(raw, v); uerr != nil {
			return events, fmt.Errorf("%s: the host's answer: %w", method, uerr)
		}
	}
	if err != nil && method == "documents/open" {
		return events, fmt.Errorf("open %s document: %w", lang, err)
	}
	if err != nil {
		return events, fmt.Errorf("%s: %w", method, err)
	}
	return events, nil
}

// Language returns the language of d: its LanguageID, else the host's
// guess from its name (the extensions' contributed languages first).
func (h *Host) Language(ctx context.Context, d Document) (string, error) {
	if d.LanguageID != "" {
		return d.LanguageID, nil
	}
	var r struct {
		LanguageID string `json:"languageId"`
	}
	if _, err := h.call(ctx, "documents/language", map[string]string{"uri": d.URI, "path": d.Path}, &r); err != nil {
		return "", fmt.Errorf("documents/language: %w", err)
	}
	return r.LanguageID, nil
}

// OpenDocument opens the file path (when not "") as a document of
// language and makes it the active editor's, first activating the
// extensions waiting for onLanguage:language. Without a path, the
// document is a new untitled one. It returns the extensions activated
// and the events caused.
func (h *Host) OpenDocument(ctx context.Context, language, path string) ([]string, []Event, error) {
	d := Document{Path: path, LanguageID: language}
	exts := h.waiting("onLanguage:" + language)
	params, _ := json.Marshal(d)
	var r struct {
		Document DocumentInfo `json:"document"`
	}
	events, err := h.Request(ctx, "documents/open", params, &r)
	var activated []string
	for _, e := range exts {
		if h.isActivated(e.ID) {
			activated = append(activated, e.ID)
		}
	}
	if err != nil {
		return activated, events, err
	}
	return activated, events, nil
}

// maxDocument caps a document the launcher reads for documents/open.
const maxDocument = 50 << 20

// readText sets d.Text, when nil, to the contents of the file d.Path
// (made absolute): the launcher reads what its caller names, which may
// lie outside the workspace (saving it back is the workspace broker's,
// and is refused there). safefile refuses what is not a regular file (a
// FIFO would block the open, a device never end) and what is over
// maxDocument, before reading.
func readText(d *Document) error {
	if d.Text != nil || d.Path == "" {
		return nil
	}
	abs, err := filepath.Abs(d.Path)
	if err != nil {
		return fmt.Errorf("open %s: %w", d.Path, err)
	}
	d.Path = abs
	b, err := safefile.ReadFile(abs, maxDocument)
	if err != nil {
		return fmt.Errorf("open document: %w", err)
	}
	t := strings.TrimPrefix(string(b), "\uFEFF")
	d.Text = &t
	return nil
}

// checkRequest refuses a method that is none of Requests, and gives
// absent params as {}.
func checkRequest(method string, params json.RawMessage) (json.RawMessage, error) {
	if _, ok := Requests[method]; !ok {
		return nil, fmt.Errorf("%s: not a request the host answers (want one of %s)", method, strings.Join(slices.Sorted(maps.Keys(Requests)), ", "))
	}
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	return params, nil
}
