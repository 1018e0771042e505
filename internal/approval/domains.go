package approval

// KindDomain is a domain the user allowed a network tool (web_fetch) to
// reach for good: "always" in the permission question. Such an entry is
// the user's own, not a project's: its Project is empty, its Name the
// tool and the host ("web_fetch docs.python.org"), its Digest empty.
const KindDomain = "domain"

// Domains is a Store as the memory of the domains always allowed
// (tools.DomainMemory). A nil Store remembers nothing.
type Domains struct{ Store *Store }

// Remembered reports whether the user always allowed tool to reach host.
func (d Domains) Remembered(tool, host string) bool {
	return d.Store != nil && d.Store.Approved("", KindDomain, tool+" "+host, "")
}

// Remember records that the user always allows tool to reach host.
func (d Domains) Remember(tool, host string) error {
	if d.Store == nil {
		return nil
	}
	return d.Store.Approve("", KindDomain, tool+" "+host, "")
}
