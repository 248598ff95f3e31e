package egress

import (
	"net/netip"
)

// privatePrefixes are the ranges no origin reaches unless its policy allows private
// addresses. IPv4-mapped IPv6 addresses are unmapped before the check, and NAT64 addresses
// (64:ff9b::/96) are judged by the IPv4 address they embed.
var privatePrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network"; 0.0.0.0 dials the local host
	netip.MustParsePrefix("127.0.0.0/8"),        // loopback
	netip.MustParsePrefix("10.0.0.0/8"),         // private
	netip.MustParsePrefix("172.16.0.0/12"),      // private
	netip.MustParsePrefix("192.168.0.0/16"),     // private
	netip.MustParsePrefix("100.64.0.0/10"),      // carrier-grade NAT
	netip.MustParsePrefix("169.254.0.0/16"),     // link-local, cloud metadata services
	netip.MustParsePrefix("224.0.0.0/4"),        // multicast
	netip.MustParsePrefix("255.255.255.255/32"), // broadcast
	netip.MustParsePrefix("::/128"),             // unspecified: dials the local host, as 0.0.0.0 does
	netip.MustParsePrefix("::1/128"),            // loopback
	netip.MustParsePrefix("fc00::/7"),           // unique local
	netip.MustParsePrefix("fe80::/10"),          // link-local
	netip.MustParsePrefix("ff00::/8"),           // multicast
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// IsPrivate reports whether a is in one of the refused ranges, and names the range.
func IsPrivate(a netip.Addr) (netip.Prefix, bool) {
	a = a.WithZone("").Unmap()
	if a.Is6() && nat64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	for _, p := range privatePrefixes {
		if p.Contains(a) {
			return p, true
		}
	}
	return netip.Prefix{}, false
}
