package webfetch

// The address guard: which addresses a fetch may connect to. The check
// runs on the resolved address at dial time (a net.Dialer Control
// function), so a name that resolves to a private address, a DNS answer
// that changes between checks (rebinding) and every redirect hop are all
// covered; no proxy is used, so the dialled address is the server's.

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"syscall"

	"github.com/ctxloop/agent/internal/tools"
)

// refusedPrefixes are the ranges refused besides what netip classifies
// (loopback, private, link-local, multicast, unspecified).
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and the broadcast address
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64: checked by its embedded IPv4 too
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
	netip.MustParsePrefix("2002::/16"),      // 6to4: may wrap any IPv4 address
	netip.MustParsePrefix("2001::/32"),      // Teredo: may wrap any IPv4 address
	netip.MustParsePrefix("::ffff:0:0/96"),  // IPv4-mapped, should one survive Unmap
	netip.MustParsePrefix("::/128"),         // unspecified
	netip.MustParsePrefix("::1/128"),        // loopback
	netip.MustParsePrefix("fc00::/7"),       // unique local
	netip.MustParsePrefix("fe80::/10"),      // link-local
	netip.MustParsePrefix("169.254.0.0/16"), // link-local, cloud metadata
	netip.MustParsePrefix("127.0.0.0/8"),    // loopback
	netip.MustParsePrefix("10.0.0.0/8"),     // private
	netip.MustParsePrefix("172.16.0.0/12"),  // private
	netip.MustParsePrefix("192.168.0.0/16"), // private
	netip.MustParsePrefix("255.255.255.255/32"),
}

// refusal says why a connection to a may not be made, "" when it may:
// loopback, private, link-local, unique-local, CGNAT, unspecified,
// multicast and reserved addresses, in any form (IPv4-mapped IPv6 is
// judged as its IPv4 address).
func refusal(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return "not an IP address"
	case a.IsLoopback():
		return "a loopback address"
	case a.IsPrivate():
		return "a private address"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "a link-local address"
	case a.IsUnspecified():
		return "an unspecified address"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	for _, p := range refusedPrefixes {
		if p.Contains(a) {
			return "a private or reserved address (" + p.String() + ")"
		}
	}
	return ""
}

// addrRefusedError is a dial the guard stopped.
type addrRefusedError struct {
	addr netip.AddrPort
	why  string
}

func (e *addrRefusedError) Error() string {
	return fmt.Sprintf("connection to %s refused: it is %s, and tools.web_fetch.allow_private is not set", e.addr, e.why)
}

// guardFunc judges a resolved address: "" allows it.
type guardFunc func(netip.AddrPort) string

// publicOnly is the guard without allow_private.
func publicOnly(ap netip.AddrPort) string { return refusal(ap.Addr()) }

// dialControl is a net.Dialer Control refusing what guard refuses.
func dialControl(guard guardFunc) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("connection to %s refused: not an IP address and port", address)
		}
		if why := guard(ap); why != "" {
			return &addrRefusedError{addr: ap, why: why}
		}
		return nil
	}
}

// checkURL says what is wrong with u as a fetch target ("" when nothing):
// only http and https, no credentials in the URL, a host.
func checkURL(u *url.URL) string {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return "it has no scheme: give a full http:// or https:// URL"
	default:
		return fmt.Sprintf("the scheme %q is not supported: only http and https", u.Scheme)
	}
	if u.User != nil {
		return "it carries credentials (user:password@): they are never sent; give the URL without them"
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return "it has no host"
	}
	if hostOf(u) == "" {
		return fmt.Sprintf("its host %q is not a valid domain name", u.Hostname())
	}
	return ""
}

// hostOf is the host of u as the request reaches it and as permissions
// judge it (tools.CanonicalHost: IDNA-mapped, punycode, no port, no
// trailing dot); "" when it is no valid host.
func hostOf(u *url.URL) string {
	return tools.CanonicalHost(u.Hostname())
}

// isRefused is the guard's refusal inside err (from a request), if any.
func isRefused(err error) (*addrRefusedError, bool) {
	var r *addrRefusedError
	ok := errors.As(err, &r)
	return r, ok
}
