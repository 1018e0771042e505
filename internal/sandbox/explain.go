package sandbox

// Explain: what a failed sandboxed command was denied, read from its
// output. Programs report a denial in their own words; these are the
// common shapes (coreutils and shells quote the path before the error,
// Go says "open PATH: read-only file system", curl names host and port).
// A pure function: the caller appends its text to the command's result.

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Denial is one thing the sandbox refused.
type Denial struct {
	Kind     string // "write", "process" or "network"
	Resource string // the path, process or host as the command named it
}

// explainRegexps are the shapes Denials reads, compiled on its first
// call: a start of the agent pays nothing for them.
type explainRegexps struct {
	rofsQuoted, rofsBare, rofsGo, procPath, devTCP, curlHost, resolve, dialTCP *regexp.Regexp
	// proxyDenied is the relay's line for a host the allow-list refused
	// (deniedLine).
	proxyDenied *regexp.Regexp
	netErr      *regexp.Regexp
}

var explainRes = sync.OnceValue(func() *explainRegexps {
	return &explainRegexps{
		rofsQuoted:  regexp.MustCompile(`['‘"]([^'’"\n]+)['’"]: Read-only file system`),
		rofsBare:    regexp.MustCompile(`(?m)(?:^|[\s:])([^\s:'"‘’]+): Read-only file system`),
		rofsGo:      regexp.MustCompile(`(?i)(?:open|mkdir|create|remove|rename|write) ([^\s:]+): read-only file system`),
		procPath:    regexp.MustCompile(`(/proc/\d+/[\w/]+)['"]?: No such file or directory`),
		devTCP:      regexp.MustCompile(`/dev/(?:tcp|udp)/([^/\s]+)/(\d+): (?:Connection refused|Network is unreachable)`),
		curlHost:    regexp.MustCompile(`(?:Failed to connect to|connect to) ([^\s]+) port (\d+)`),
		resolve:     regexp.MustCompile(`(?:Could not resolve host|Temporary failure in name resolution|Name or service not known|no such host)[: ]*([\w.-]*)`),
		dialTCP:     regexp.MustCompile(`dial (?:tcp|udp)\d? ([^\s:]+:\d+): connect: (?:connection refused|network is unreachable)`),
		proxyDenied: regexp.MustCompile(`sandbox: network connection to (\S+) denied: the host is not in`),
		netErr:      regexp.MustCompile(`(?i)network is unreachable|connection refused`),
	}
})

// Denials finds what the sandbox denied in output, a failed command's
// combined output, under policy p. A denied write shows as EROFS ("Read-
// only file system": the sandbox mounts what it protects read-only), on a
// path the policy does not let the command write; EACCES ("Permission
// denied") is the file's owner and mode speaking, as outside the sandbox,
// and is not blamed on it. Network errors count only when the network is
// cut.
func Denials(output string, p Policy) []Denial {
	re := explainRes()
	var ds []Denial
	seen := map[Denial]bool{}
	add := func(kind, res string) {
		d := Denial{Kind: kind, Resource: res}
		if res != "" && !seen[d] {
			seen[d] = true
			ds = append(ds, d)
		}
	}
	for _, rx := range []*regexp.Regexp{re.rofsQuoted, re.rofsGo, re.rofsBare} {
		for _, m := range rx.FindAllStringSubmatch(output, -1) {
			path := m[1]
			if strings.HasPrefix(path, "/dev/tcp/") || strings.HasPrefix(path, "/dev/udp/") {
				continue
			}
			if !Writable(p, absPath(p.Workspace, path)) {
				add("write", path)
			}
		}
	}
	for _, m := range re.procPath.FindAllStringSubmatch(output, -1) {
		add("process", m[1])
	}
	for _, m := range re.proxyDenied.FindAllStringSubmatch(output, -1) {
		add("network", m[1])
	}
	if p.Network != NetworkAllow {
		for _, rx := range []*regexp.Regexp{re.devTCP, re.curlHost, re.dialTCP} {
			for _, m := range rx.FindAllStringSubmatch(output, -1) {
				host := m[1]
				if len(m) > 2 {
					host += ":" + m[2]
				}
				add("network", host)
			}
		}
		for _, m := range re.resolve.FindAllStringSubmatch(output, -1) {
			h := m[1]
			if h == "" {
				h = "(a host name)"
			}
			add("network", h)
		}
		if !hasKind(ds, "network") && re.netErr.MatchString(output) {
			add("network", "(a network connection)")
		}
	}
	return ds
}

func hasKind(ds []Denial, kind string) bool {
	for _, d := range ds {
		if d.Kind == kind {
			return true
		}
	}
	return false
}

// Writable reports whether policy p lets a command write the absolute path.
func Writable(p Policy, path string) bool {
	if p.Mode != ModeWorkspaceWrite {
		return false
	}
	for _, r := range p.ReadOnly {
		if within(r, path) {
			return false
		}
	}
	for _, name := range protectedNames {
		if within(filepath.Join(p.Workspace, name), path) {
			return false
		}
	}
	if within(p.Workspace, path) {
		return true
	}
	for _, w := range p.Writable {
		if within(w, path) {
			return true
		}
	}
	return false
}

func within(dir, path string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func absPath(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// Explain is the note for the model after a failed sandboxed command:
// what was denied, and how the user (not the model) can allow it. Empty
// when the output shows no denial.
func Explain(output string, p Policy) string {
	what, hints := describe(Denials(output, p), p)
	if len(what) == 0 {
		return ""
	}
	return fmt.Sprintf("[sandbox (%s): the command was denied %s. This is the sandbox's doing, not a bug to work around: do not retry it another way. The user can allow it: %s.]",
		p.Mode, strings.Join(what, "; "), strings.Join(hints, "; or "))
}

// Summary is what the sandbox denied, in a line for the user ("write to
// ../x (/abs/x; outside the writable workspace)"); empty when nothing.
func Summary(output string, p Policy) string {
	what, _ := describe(Denials(output, p), p)
	return strings.Join(what, "; ")
}

// describe says what each denial was and how the user can allow them.
func describe(ds []Denial, p Policy) (what, hints []string) {
	if len(ds) == 0 {
		return nil, nil
	}
	hint := func(h string) {
		for _, x := range hints {
			if x == h {
				return
			}
		}
		hints = append(hints, h)
	}
	for _, d := range ds {
		switch d.Kind {
		case "write":
			abs := absPath(p.Workspace, d.Resource)
			why := "outside the writable workspace"
			switch {
			case p.Mode == ModeReadOnly:
				why = "the read-only sandbox writes nowhere"
			case protectedIn(p, abs) != "":
				why = protectedIn(p, abs) + " stays read-only in the sandbox"
			}
			what = append(what, fmt.Sprintf("write to %s (%s; %s)", d.Resource, abs, why))
			if p.Mode == ModeReadOnly {
				hint("switch to /sandbox workspace-write (agent run --sandbox workspace-write)")
			} else if protectedIn(p, abs) == "" {
				hint("add the directory to \"sandbox\": {\"writable\": [...]} in the user config")
			}
		case "process":
			what = append(what, fmt.Sprintf("access to %s (the agent's and the host's processes are not visible in the sandbox)", d.Resource))
		case "network":
			if len(p.Hosts) > 0 {
				what = append(what, fmt.Sprintf("network connection to %s (only the hosts in sandbox.network are reachable, through the proxy)", d.Resource))
				hint(fmt.Sprintf("add %q to \"sandbox\": {\"network\": [...]} in the user config", d.Resource))
				continue
			}
			what = append(what, fmt.Sprintf("network connection to %s (the network is off in the sandbox)", d.Resource))
			hint("set \"sandbox\": {\"network\": \"allow\"} (or a list of hosts) in the user config")
		}
	}
	hint("run it outside the sandbox (in the chat: approve \"run outside the sandbox once\", or /sandbox off; headless: --sandbox off)")
	return what, hints
}

// protectedIn names the protected directory holding path ("" if none).
func protectedIn(p Policy, path string) string {
	for _, name := range protectedNames {
		if within(filepath.Join(p.Workspace, name), path) {
			return name
		}
	}
	for _, r := range p.ReadOnly {
		if within(r, path) {
			return "the agent's data directory"
		}
	}
	return ""
}
