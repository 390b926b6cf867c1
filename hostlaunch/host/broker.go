package host

// The capability brokers: an extension granted spawn or network does not
// get node's child_process or sockets (the kernel sandbox denies every
// fork, exec and socket inside the host). Its brokered child_process and
// fetch (js/spawn.js, js/fetch.js) are requests to the launcher, which
// checks them against the extension's Programs or AllowedHosts, runs
// them, and audits every request and every refusal.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// KindAudit is the kind of the event of every brokered request and every
// broker refusal; Level is "allowed" or "denied", Capability the
// capability the broker serves, Audit the record.
const KindAudit = "audit"

// Audit is one brokered request or broker refusal.
type Audit struct {
	Time time.Time `json:"time"`
	// Extension is the extension that asked.
	Extension string `json:"extension"`
	// Kind is "spawn" or "fetch".
	Kind string `json:"kind"`
	// Allowed is false for a refusal (Details.Reason says why).
	Allowed bool         `json:"allowed"`
	Details AuditDetails `json:"details"`
}

// AuditDetails are what an Audit records of its request.
type AuditDetails struct {
	// Method, URL and Status of a fetch (Status 0: no response).
	Method string `json:"method,omitempty"`
	URL    string `json:"url,omitempty"`
	Status int    `json:"status,omitempty"`
	// Program (as resolved), Args and Dir of a spawn; ExitCode (nil when
	// it did not exit on its own), Signal and TimedOut how it ended.
	Program  string   `json:"program,omitempty"`
	Args     []string `json:"args,omitempty"`
	Dir      string   `json:"dir,omitempty"`
	ExitCode *int     `json:"exitCode,omitempty"`
	Signal   string   `json:"signal,omitempty"`
	TimedOut bool     `json:"timedOut,omitempty"`
	// Bytes is the size of a fetch's response body, or of what a spawned
	// program wrote (stdout and stderr, before any truncation).
	Bytes int64 `json:"bytes"`
	// Reason is why the broker refused, or how the request failed.
	Reason string `json:"reason,omitempty"`
}

// summary is the event text of a.
func (a Audit) summary() string {
	d := a.Details
	var s string
	switch a.Kind {
	case "spawn":
		s = "spawn " + strings.Join(append([]string{d.Program}, d.Args...), " ")
		if a.Allowed && d.Reason == "" {
			switch {
			case d.TimedOut:
				s += ": killed at the deadline"
			case d.ExitCode != nil:
				s += fmt.Sprintf(": exit %d", *d.ExitCode)
			case d.Signal != "":
				s += ": " + d.Signal
			}
			s += fmt.Sprintf(", %d bytes out", d.Bytes)
		}
	case "fetch":
		s = "fetch " + d.Method + " " + d.URL
		if a.Allowed && d.Reason == "" {
			s += fmt.Sprintf(": %d, %d bytes", d.Status, d.Bytes)
		}
	}
	if d.Reason != "" {
		s += ": " + d.Reason
	}
	return s
}

// codeDenied is the JSON-RPC error code of a broker refusal; the host
// turns it into an ERR_AIRVSX_DENIED error.
const codeDenied = -32002

// deniedError is a broker refusal: Msg is what the extension is told.
type deniedError struct{ Msg string }

func (e *deniedError) Error() string { return e.Msg }

func denyf(format string, args ...any) error {
	return &deniedError{Msg: fmt.Sprintf(format, args...)}
}

// brokerRequest is the part every broker request shares: the extension
// that asks and the launcher request during which it asks.
type brokerRequest struct {
	Extension string `json:"extension"`
	Cause     *int64 `json:"cause"`
}

// extension returns the extension id of this host, if it has capability
// c; else a refusal naming c.
func (h *Host) extension(id string, c string) (*Extension, error) {
	i := slices.IndexFunc(h.opts.Extensions, func(e Extension) bool { return strings.EqualFold(e.ID, id) })
	if i < 0 {
		return nil, denyf("airvsx: no extension %q in this host", id)
	}
	e := &h.opts.Extensions[i]
	if !slices.Contains(e.Capabilities, c) {
		return e, denyf("airvsx: extension %s may not use the %s broker: it needs the %q capability, which it is not granted", e.ID, c, c)
	}
	return e, nil
}

// brokered begins the broker request a for capability: it returns the
// extension that asks, named by a.Extension (set to its ID), and deny,
// which records a as refused, with the error as its reason, and returns
// that error. When the extension may not use the broker, err is the
// refusal.
func (h *Host) brokered(a *Audit, capability string, cause *int64) (*Extension, func(error) (any, error), error) {
	deny := func(err error) (any, error) {
		a.Details.Reason = err.Error()
		h.audit(*a, capability, cause)
		return nil, err
	}
	e, err := h.extension(a.Extension, capability)
	if err != nil {
		return nil, deny, err
	}
	a.Extension = e.ID
	return e, deny, nil
}

// audit records a: an event of kind KindAudit attributed to its extension
// and to the request cause, an INFO line in the launcher's log, and
// Options.Audit.
func (h *Host) audit(a Audit, capability string, cause *int64) {
	a.Time = time.Now()
	level := "allowed"
	if !a.Allowed {
		level = "denied"
	}
	h.log.Info("audit", "ext", a.Extension, "kind", a.Kind, "allowed", a.Allowed, "details", a.Details)
	if h.opts.Audit != nil {
		h.opts.Audit(a)
	}
	h.deliver(Event{Kind: KindAudit, Extension: a.Extension, Level: level, Capability: capability, Text: a.summary(), Time: a.Time, Audit: &a}, cause)
}

// serveBroker answers the host's broker request id with serve's result.
func (h *Host) serveBroker(id int64, params json.RawMessage, serve func(json.RawMessage) (any, error)) {
	res, err := serve(params)
	var rerr *rpcError
	var de *deniedError
	switch {
	case errors.As(err, &de):
		rerr = &rpcError{Code: codeDenied, Message: de.Msg}
	case err != nil:
		rerr = &rpcError{Code: -32000, Message: err.Error()}
	}
	h.reply(id, res, rerr, "broker")
}
