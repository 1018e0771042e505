package tools

// Per-domain permissions, for the tools that reach the network by URL
// (web_fetch). Such a tool's call is asked about per host: the
// configuration may allow or deny hosts by pattern ("permissions":
// {"web_fetch": {"docs.python.org": "allow", "*.internal": "deny"}}, kept
// in the modes as "web_fetch:docs.python.org"), and "allow for this
// session" grants the host, not the tool. The most specific pattern wins:
// an exact host, then the longest "*.suffix", then "*", then the tool's
// own mode (ask when unset). --yes approves what would ask, and so does a
// domain the user allowed "always" (DomainMemory); a deny stays.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"

	"github.com/ctxloop/agent/internal/secrets"
)

// DomainGated is implemented by tools whose permission is per domain.
// PermissionDomain is the host a call reaches, lower case, without port;
// "" when the input names none (the tool then refuses the call itself, so
// it is let through unasked).
type DomainGated interface {
	PermissionDomain(input json.RawMessage) string
}

// DomainMemory remembers the domains the user allowed for good (the
// AllowAlways answer); internal/approval keeps them in the data dir.
type DomainMemory interface {
	Remembered(tool, host string) bool
	Remember(tool, host string) error
}

// WithDomainMemory makes p honour and record the domains always allowed,
// and returns p. Call it before p is used.
func (p *Permissions) WithDomainMemory(m DomainMemory) *Permissions {
	p.domains = m
	return p
}

// DomainPatternSep separates a tool from a domain pattern in a
// permissions key: "web_fetch:*.internal".
const DomainPatternSep = ":"

// domainMode is the mode for tool reaching host, and the key that set it
// ("" for the default).
func (p *Permissions) domainMode(tool, host string) (Mode, string) {
	best, bestKey, bestRank := Mode(""), "", -1
	prefix := tool + DomainPatternSep
	for key, mode := range p.configured {
		pattern, ok := strings.CutPrefix(key, prefix)
		if !ok {
			continue
		}
		rank := domainMatch(strings.ToLower(pattern), host)
		// A deny wins a tie: two patterns as specific as each other and
		// one of them says no.
		if rank > bestRank || rank == bestRank && rank >= 0 && mode == ModeDeny {
			best, bestKey, bestRank = mode, key, rank
		}
	}
	if bestRank >= 0 {
		switch best {
		case ModeAllow, ModeDeny:
			return best, bestKey
		}
		return ModeAsk, bestKey
	}
	if _, set := p.configured[tool]; set {
		return p.Mode(tool), tool
	}
	return ModeAsk, ""
}

// CanonicalHost is host as a request reaches it and as permissions
// compare it: an IP literal as it is, a name mapped through IDNA's lookup
// profile as net/http maps it before it resolves (so fullwidth letters and
// upper case fold to ASCII, and a Unicode name becomes punycode, which a
// look-alike cannot imitate), without the root's trailing dot. "" when
// host is no name a request could reach (an empty label, a Unicode name
// IDNA refuses).
func CanonicalHost(host string) string {
	host = strings.ToLower(host)
	if a, err := netip.ParseAddr(host); err == nil {
		return a.String()
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		if !isASCII(host) {
			return ""
		}
		ascii = host // net/http dials an ASCII name IDNA refuses (a_b.example) as it is
	}
	if strings.HasPrefix(ascii, ".") || strings.Contains(ascii, "..") {
		return ""
	}
	return strings.TrimSuffix(ascii, ".")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// canonicalPattern is a permissions domain pattern in CanonicalHost's
// form: "*", "*." and a host, or a host.
func canonicalPattern(pattern string) string {
	if pattern == "*" {
		return pattern
	}
	if suffix, ok := strings.CutPrefix(pattern, "*."); ok {
		if h := CanonicalHost(suffix); h != "" {
			return "*." + h
		}
		return pattern
	}
	if h := CanonicalHost(pattern); h != "" {
		return h
	}
	return pattern
}

// domainMatch ranks how specifically pattern matches host: -1 no match,
// 0 for "*", the pattern's length for "*.suffix" (which matches hosts
// under suffix, not suffix itself), and more than any of these for the
// exact host.
func domainMatch(pattern, host string) int {
	pattern = canonicalPattern(pattern)
	switch {
	case pattern == "*":
		return 0
	case strings.HasPrefix(pattern, "*."):
		if strings.HasSuffix(host, pattern[1:]) && len(host) > len(pattern)-1 {
			return len(pattern)
		}
		return -1
	case pattern == host:
		return 1 << 20
	}
	return -1
}

// checkDomain is Check for a DomainGated tool.
func (p *Permissions) checkDomain(ctx context.Context, env *Env, call Call, host string) (bool, string, error) {
	if host == "" {
		return true, "", nil
	}
	mode, key := p.domainMode(call.Name, host)
	switch mode {
	case ModeDeny:
		return false, fmt.Sprintf("permission denied: %s of %s is denied by the configuration (permissions %q = \"deny\"); nothing was fetched. Do not retry it: do without it or ask the user.", call.Name, host, key), nil
	case ModeAllow:
		return true, "", nil
	}
	req := Request{
		Tool: call.Name, CallID: call.ID, Title: call.Name + " " + host, Domain: host, From: env.AskFrom,
		Reason: fmt.Sprintf("%s asks once per domain; %s has not been allowed", call.Name, host),
	}
	if t := urlTitle(call); t != "" {
		req.Title = secrets.Redact(t, env.Secrets...)
	}
	if p.granted(req) || p.yes || p.domains != nil && p.domains.Remembered(call.Name, host) {
		return true, "", nil
	}
	if p.asker == nil {
		return false, fmt.Sprintf("permission denied: %s of %s needs approval and nobody can approve it in this non-interactive run; nothing was fetched. To allow it, the user can re-run with --yes, or set \"permissions\": {%q: {%q: \"allow\"}} in the user config. Carry on without it, or explain what you need.", call.Name, host, call.Name, host), nil
	}
	return p.askUser(ctx, req, nil, func() {
		if p.domains != nil {
			// Not remembered is still allowed now and for the session.
			_ = p.domains.Remember(call.Name, host)
		}
	})
}

// urlTitle is a DomainGated call's title for the dialog: its name
// and URL, cut to a line.
func urlTitle(call Call) string {
	var in struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(call.Input, &in) != nil || in.URL == "" {
		return ""
	}
	u := strings.Join(strings.Fields(in.URL), "")
	if len(u) > maxTitleArgs {
		u = strings.ToValidUTF8(u[:maxTitleArgs], "") + "…"
	}
	return call.Name + " " + u
}
