package verify

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// SARIF 2.1.0 (OASIS), the subset code-scanning UIs read.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool                  `json:"tool"`
	BaseIDs     map[string]sarifArtifact   `json:"originalUriBaseIds,omitempty"`
	Results     []sarifResult              `json:"results"`
	Invocations []sarifInvocation          `json:"invocations"`
	Properties  map[string]json.RawMessage `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
	Help             sarifMessage `json:"help"`
	Default          sarifConfig  `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifResult struct {
	RuleID    string            `json:"ruleId"`
	RuleIndex int               `json:"ruleIndex"`
	Level     string            `json:"level"`
	Message   sarifMessage      `json:"message"`
	Locations []sarifLocation   `json:"locations,omitempty"`
	Props     map[string]string `json:"properties,omitempty"`
}

type sarifLocation struct {
	Physical *sarifPhysical `json:"physicalLocation,omitempty"`
	Logical  []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	Artifact sarifArtifact `json:"artifactLocation"`
}

type sarifLogical struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

type sarifInvocation struct {
	Successful bool `json:"executionSuccessful"`
}

// WriteSARIF writes the report as a SARIF 2.1.0 log with one run: every
// rule in tool.driver.rules (its help the fix for a registry, or for a
// single file in a package report), one result per problem (level error or
// warning, the fix appended to the message), located at the problem's
// file relative to the base id REGISTRY (the registry directory) or
// PACKAGE (the directory of the .vsix), with the entry as a logical
// location.
func (r *Report) WriteSARIF(w io.Writer, toolVersion string) error {
	ids := make([]string, 0, len(rules))
	for id := range rules {
		ids = append(ids, string(id))
	}
	slices.Sort(ids)
	driver := sarifDriver{Name: "airvsx", InformationURI: "https://github.com/airvsx/airvsx", Version: toolVersion, Rules: []sarifRule{}}
	index := map[string]int{}
	for i, id := range ids {
		info := rules[Rule(id)]
		level := "error"
		if strings.HasPrefix(id, "orphan-") || id == string(RuleExtraFile) || id == string(RuleStrayFile) || id == string(RulePolicyDependencyOnly) ||
			id == string(RuleControlDeprecated) || id == string(RuleControlStale) || id == string(RuleControlNone) {
			level = "warning"
		}
		if id == string(RuleLocalEntry) || id == string(RuleControlOverridden) {
			level = "note"
		}
		help := info.fix
		if r.Kind == "package" {
			help = packageFixFor(Rule(id))
		}
		driver.Rules = append(driver.Rules, sarifRule{ID: id, ShortDescription: sarifMessage{info.short}, Help: sarifMessage{help}, Default: sarifConfig{level}})
		index[id] = i
	}
	base, dir := "REGISTRY", r.Target
	if r.Kind == "package" {
		base, dir = "PACKAGE", filepath.Dir(r.Target)
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}, Invocations: []sarifInvocation{{Successful: true}}}
	if abs, err := filepath.Abs(dir); err == nil {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs) + "/"}
		run.BaseIDs = map[string]sarifArtifact{base: {URI: u.String()}}
	}
	for _, p := range r.Problems {
		res := sarifResult{RuleID: string(p.Rule), RuleIndex: index[string(p.Rule)], Level: p.Severity.String(),
			Message: sarifMessage{p.Message + " Fix: " + p.Fix}}
		loc := sarifLocation{}
		file := p.File
		if r.Kind == "package" {
			file = filepath.Base(r.Target)
		}
		if file != "" {
			loc.Physical = &sarifPhysical{Artifact: sarifArtifact{URI: escapePath(file), URIBaseID: base}}
		}
		if p.Entry != "" {
			loc.Logical = []sarifLogical{{Name: p.Entry, Kind: "module"}}
			res.Props = map[string]string{"entry": p.Entry}
		}
		if loc.Physical != nil || loc.Logical != nil {
			res.Locations = []sarifLocation{loc}
		}
		if r.Kind == "package" && p.File != "" {
			if res.Props == nil {
				res.Props = map[string]string{}
			}
			res.Props["archiveEntry"] = p.File
		}
		run.Results = append(run.Results, res)
	}
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}

// escapePath percent-encodes each element of a slash path for a URI
// reference.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}
