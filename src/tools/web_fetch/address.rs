//! Where a fetch may connect: the host's addresses, resolved once and then the only ones
//! the client connects to (so a name cannot resolve to something else between the check
//! and the connection), and the rule that private, loopback and link-local addresses are
//! refused unless the user's own `~/.agents/permissions.json` names the host in
//! `"web_fetch": {"allow": [...]}` (a project's file cannot open the user's network).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::time::Duration;

/// How long a name lookup may take.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(10);

/// The addresses `host:port` resolves to.
pub async fn resolve(host: &str, port: u16) -> Result<Vec<SocketAddr>, String> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let lookup = tokio::net::lookup_host((bare, port));
    match tokio::time::timeout(LOOKUP_TIMEOUT, lookup).await {
        Err(_) => Err(format!("looking up {host} took over {} s", LOOKUP_TIMEOUT.as_secs())),
        Ok(Err(e)) => Err(format!("cannot find {host}: {e}")),
        Ok(Ok(addrs)) => {
            let addrs: Vec<SocketAddr> = addrs.collect();
            if addrs.is_empty() {
                return Err(format!("{host} has no address"));
            }
            Ok(addrs)
        }
    }
}

/// Why `ip` is not on the public internet, or `None` when it is.
pub fn private_kind(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => private_v4(v4),
        IpAddr::V6(v6) => {
            if v6.is_loopback() {
                return Some("a loopback address");
            }
            if v6.is_unspecified() {
                return Some("an unspecified address");
            }
            if let Some(v4) = v6.to_ipv4_mapped() {
                return private_v4(v4);
            }
            let first = v6.segments()[0];
            if first & 0xfe00 == 0xfc00 {
                return Some("a private (unique local) address");
            }
            if first & 0xffc0 == 0xfe80 {
                return Some("a link-local address");
            }
            if first & 0xff00 == 0xff00 {
                return Some("a multicast address");
            }
            // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address inside.
            let s = v6.segments();
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                return private_v4(Ipv4Addr::from((u32::from(s[6]) << 16) | u32::from(s[7])));
            }
            if first == 0x2002 {
                return private_v4(Ipv4Addr::from((u32::from(s[1]) << 16) | u32::from(s[2])));
            }
            None
        }
    }
}

fn private_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("a loopback address")
    } else if ip.is_private() {
        Some("a private address")
    } else if ip.is_link_local() {
        Some("a link-local address (cloud metadata lives here)")
    } else if ip.is_unspecified() || a == 0 {
        Some("an unspecified address")
    } else if a == 100 && (64..128).contains(&b) {
        Some("a shared (carrier-grade NAT) address")
    } else if ip.is_multicast() || ip.is_broadcast() || a >= 240 {
        Some("a multicast or reserved address")
    } else if a == 198 && (b == 18 || b == 19) {
        Some("a benchmarking network address")
    } else {
        None
    }
}

/// Whether the user's own permissions file (`home/.agents/permissions.json`) names `host`
/// (`127.0.0.1`, `localhost:8080`) in the `web_fetch` tool's `allow` list. A pattern with
/// `*` never opens a private address: the user names it.
pub fn user_allows_private(home: Option<&Path>, host: &str) -> bool {
    let Some(home) = home else { return false };
    // A regular file only, never waited on (a FIFO), capped as the permissions plugin caps it.
    let path = home.join(".agents/permissions.json");
    let Ok(bytes) = crate::tools::regular::read_capped(&path, 1024 * 1024) else { return false };
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes) else { return false };
    let Some(list) = value["web_fetch"]["allow"].as_array() else { return false };
    let name = host_name(host);
    list.iter().filter_map(|v| v.as_str()).map(|p| p.trim().to_ascii_lowercase()).any(|p| p == host || p == name)
}

/// `host` without its port (`[::1]:8080` is `[::1]`).
pub fn host_name(host: &str) -> &str {
    if let Some(end) = host.find(']') {
        return &host[..=end];
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(ip: &str) -> Option<&'static str> {
        private_kind(ip.parse().unwrap())
    }

    #[test]
    fn private_loopback_link_local_and_reserved_addresses_are_named() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
        ] {
            assert!(kind(ip).is_some(), "{ip} is not public");
        }
        for ip in ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "172.32.0.1"] {
            assert_eq!(kind(ip), None, "{ip} is public");
        }
    }

    #[test]
    fn only_the_users_own_named_host_opens_a_private_address() {
        let home = tempfile::tempdir().unwrap();
        assert!(!user_allows_private(Some(home.path()), "127.0.0.1:8080"), "no file");
        std::fs::create_dir_all(home.path().join(".agents")).unwrap();
        let file = home.path().join(".agents/permissions.json");
        std::fs::write(&file, r#"{"web_fetch": {"allow": ["127.0.0.1", "*", "*.local"]}}"#).unwrap();
        assert!(user_allows_private(Some(home.path()), "127.0.0.1:8080"));
        assert!(user_allows_private(Some(home.path()), "127.0.0.1"));
        assert!(!user_allows_private(Some(home.path()), "printer.local"), "a wildcard does not");
        assert!(!user_allows_private(Some(home.path()), "10.0.0.1"));
        std::fs::write(&file, r#"{"web_fetch": {"allow": ["localhost:9000"]}}"#).unwrap();
        assert!(user_allows_private(Some(home.path()), "localhost:9000"));
        assert!(!user_allows_private(Some(home.path()), "localhost:9001"), "another port");
        std::fs::write(&file, "not json").unwrap();
        assert!(!user_allows_private(Some(home.path()), "localhost:9000"));
    }

    #[test]
    fn a_hosts_name_drops_its_port() {
        assert_eq!(host_name("docs.rs"), "docs.rs");
        assert_eq!(host_name("127.0.0.1:8080"), "127.0.0.1");
        assert_eq!(host_name("[::1]:8080"), "[::1]");
        assert_eq!(host_name("[::1]"), "[::1]");
    }
}
