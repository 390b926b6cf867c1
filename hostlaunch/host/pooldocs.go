package host

// Documents and language features across a pool: every host holds every
// open document (its extensions may provide for it), provider answers
// and diagnostics are merged from every host, a tree view is asked of
// the host that registered it, and an edit an extension makes in one
// host is copied to the others (Sync).

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Request sends one of Requests to the pool and returns its answer:
// documents/open, change, close and show go to every host (documents/open
// after activating, each in its own host, the other-host dependencies of
// the extensions waiting for the document's language); documents/save,
// get, list and language to the first; provide and diagnostics to every
// host, their items merged; tree/children to the host of the view.
func (p *Pool) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, []Event, error) {
	params, err := checkRequest(method, params)
	if err != nil {
		return nil, nil, err
	}
	switch method {
	case "documents/open":
		var d Document
		if err := json.Unmarshal(params, &d); err != nil {
			return nil, nil, fmt.Errorf("documents/open: %w", err)
		}
		if err := readText(&d); err != nil {
			return nil, nil, err
		}
		// Each host knows the languages its own extensions contribute:
		// the first that knows better than plain text names it.
		lang := ""
		for _, s := range p.hosts {
			l, err := s.Host().Language(ctx, d)
			if err != nil {
				return nil, nil, err
			}
			if lang == "" || (lang == "plaintext" && l != "plaintext") {
				lang = l
			}
		}
		d.LanguageID = lang
		events, err := p.activateLanguageDeps(ctx, lang)
		if err != nil {
			return nil, events, fmt.Errorf("open %s document: %w", lang, err)
		}
		if d.URI == "" && d.Path == "" {
			// A new untitled document: one name in every host.
			d.URI = fmt.Sprintf("untitled:Untitled-%d", p.untitled.Add(1))
			if d.Text == nil {
				empty := ""
				d.Text = &empty
			}
		}
		params, _ = json.Marshal(d)
		// A document of another scheme (a content or file-system
		// provider's) opens in the hosts that can read it.
		scheme, _, _ := strings.Cut(d.URI, ":")
		res, ev, err := p.every(ctx, method, params, d.URI != "" && scheme != "file" && scheme != "untitled")
		return res, append(events, ev...), err
	case "documents/change", "documents/close", "documents/show":
		return p.every(ctx, method, params, true)
	case "documents/save", "documents/get":
		// The first host that has the document open.
		var last error
		for _, s := range p.hosts {
			res, ev, err := p.one(ctx, s.Host(), method, params)
			if err == nil || !notOpen(err) {
				return res, ev, err
			}
			last = err
		}
		return nil, nil, last
	case "provide", "diagnostics", "tree/views":
		return p.merged(ctx, method, params)
	case "tree/children":
		// A tree view, as tree/children names it and tree/views lists it.
		type view struct {
			View string `json:"view"`
		}
		var q view
		json.Unmarshal(params, &q)
		for _, s := range p.hosts {
			var r struct {
				Views []view `json:"views"`
			}
			if _, err := s.Host().Request(ctx, "tree/views", nil, &r); err != nil {
				return nil, nil, err
			}
			if slices.Contains(r.Views, q) {
				return p.one(ctx, s.Host(), method, params)
			}
		}
		return nil, nil, fmt.Errorf("tree/children: no tree view %q is registered (tree/views lists those that are)", q.View)
	default:
		return p.one(ctx, p.hosts[0].Host(), method, params)
	}
}

func (p *Pool) one(ctx context.Context, h *Host, method string, params json.RawMessage) (json.RawMessage, []Event, error) {
	var r json.RawMessage
	ev, err := h.Request(ctx, method, params, &r)
	if err != nil {
		return nil, ev, err
	}
	ev = append(ev, p.Sync(ctx, ev)...)
	return r, ev, nil
}

// every sends the request to every host; the answer is the first
// host's that answered. With some, a host that does not have the
// document open (or, for documents/open, cannot read it) is passed over,
// as long as one host answers.
func (p *Pool) every(ctx context.Context, method string, params json.RawMessage, some bool) (json.RawMessage, []Event, error) {
	var first json.RawMessage
	var firstErr error
	var events []Event
	answered := false
	for _, s := range p.hosts {
		var r json.RawMessage
		ev, err := s.Host().Request(ctx, method, params, &r)
		events = append(events, ev...)
		if err != nil {
			if !some || (method != "documents/open" && !notOpen(err)) {
				return nil, events, err
			}
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		if !answered {
			first, answered = r, true
		}
	}
	if !answered {
		return nil, events, firstErr
	}
	return first, append(events, p.Sync(ctx, events)...), nil
}

// notOpen says whether err is a host's answer that it does not have the
// document open.
func notOpen(err error) bool {
	var ce *CommandError
	return errors.As(err, &ce) && ce.Kind == NotOpen
}

// merged sends the request to every host and concatenates the arrays of
// their answers (items, errors, diagnostics, views); providers is summed.
// A host that does not have the document open (a provider's document
// only some hosts can read) is passed over, as long as one answers.
func (p *Pool) merged(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, []Event, error) {
	out := map[string]any{}
	var events []Event
	var firstErr error
	answered := false
	providers := 0
	for _, s := range p.hosts {
		var r map[string]json.RawMessage
		ev, err := s.Host().Request(ctx, method, params, &r)
		events = append(events, ev...)
		if notOpen(err) {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		if err != nil {
			return nil, events, err
		}
		answered = true
		for k, v := range r {
			if k == "providers" {
				var n int
				json.Unmarshal(v, &n)
				providers += n
				continue
			}
			var list []json.RawMessage
			if json.Unmarshal(v, &list) != nil {
				out[k] = v
				continue
			}
			prev, _ := out[k].([]json.RawMessage)
			out[k] = append(append([]json.RawMessage{}, prev...), list...)
		}
	}
	if !answered {
		return nil, events, firstErr
	}
	if method == "provide" {
		out["providers"] = providers
	}
	b, err := json.Marshal(out)
	return b, events, err
}

// Sync copies to every other host the documents that the edit events
// among events say an extension changed: the text of the host that
// runs the extension becomes every host's. It returns the events the
// copies caused. Edits reported outside a request (Events) are the
// caller's to pass here.
func (p *Pool) Sync(ctx context.Context, events []Event) []Event {
	if len(p.hosts) < 2 {
		return nil
	}
	var out []Event
	done := map[string]bool{}
	for _, e := range events {
		if e.Kind != KindEdit || e.URI == "" || done[e.URI] {
			continue
		}
		done[e.URI] = true
		src := p.hostOf(e.Extension)
		if src < 0 {
			src = 0
		}
		var d DocumentInfo
		q, _ := json.Marshal(map[string]string{"uri": e.URI})
		if _, err := p.hosts[src].Host().Request(ctx, "documents/get", q, &d); err != nil {
			continue // closed since
		}
		ch, _ := json.Marshal(map[string]any{"uri": e.URI, "text": d.Text})
		for i, s := range p.hosts {
			if i == src {
				continue
			}
			ev, err := s.Host().Request(ctx, "documents/change", ch, nil)
			out = append(out, ev...)
			if err != nil && !errors.Is(err, ErrExited) {
				continue
			}
		}
	}
	return out
}
