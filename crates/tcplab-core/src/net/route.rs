// SPDX-License-Identifier: MIT OR Apache-2.0
//! Static routing: shortest paths by hop count, computed once before a run.
//!
//! A node with one link (most hosts) sends everything over it. For every
//! node with several links, a breadth-first search from that node labels
//! each reachable node with the first hop of a shortest path; neighbours are
//! visited in the order their links appear in the scenario, so ties break
//! the same way every time. Hosts do not forward: a path may start and end
//! at a host but never pass through one. Explicit routes then override
//! single entries. The cost is O(M * (N + E)) for M multi-link nodes, so
//! thousands of single-homed hosts around a few routers stay cheap, and a
//! lookup per packet is one array index.

/// Sentinel for "no route".
pub const NO_ROUTE: u32 = u32::MAX;

/// The routing state of one node.
#[derive(Clone, Debug, Default)]
pub struct RouteTable {
    /// The link direction used for every destination when the node has a
    /// single link (and `table` is empty).
    pub default: Option<u32>,
    /// Per destination node id: the outgoing link direction, or NO_ROUTE.
    pub table: Vec<u32>,
}

impl RouteTable {
    #[inline]
    pub fn next(&self, dst: u32) -> u32 {
        if self.table.is_empty() {
            self.default.unwrap_or(NO_ROUTE)
        } else {
            self.table[dst as usize]
        }
    }
}

/// Every node's links: (outgoing link direction, neighbour), in the order
/// the links were declared. One flat array with an offset per node, so that
/// a million single-link hosts cost two arrays, not a million small ones.
#[derive(Clone, Debug, Default)]
pub struct Adjacency {
    /// Node `n`'s entries are `items[start[n]..start[n + 1]]`.
    start: Vec<u32>,
    items: Vec<(u32, u32)>,
}

impl Adjacency {
    /// The adjacency of `nodes` nodes joined by `links` full-duplex links
    /// (a, b): link `i`'s direction `2i` goes a -> b, `2i + 1` b -> a.
    pub fn new(nodes: usize, links: &[(u32, u32)]) -> Adjacency {
        let mut start = vec![0u32; nodes + 1];
        for &(a, b) in links {
            start[a as usize + 1] += 1;
            start[b as usize + 1] += 1;
        }
        for n in 0..nodes {
            start[n + 1] += start[n];
        }
        let mut fill = start.clone();
        let mut items = vec![(0, 0); 2 * links.len()];
        for (i, &(a, b)) in links.iter().enumerate() {
            for (ld, from, to) in [(2 * i, a, b), (2 * i + 1, b, a)] {
                items[fill[from as usize] as usize] = (ld as u32, to);
                fill[from as usize] += 1;
            }
        }
        Adjacency { start, items }
    }

    /// Node `n`'s (outgoing link direction, neighbour) pairs.
    #[inline]
    pub fn of(&self, n: u32) -> &[(u32, u32)] {
        &self.items[self.start[n as usize] as usize..self.start[n as usize + 1] as usize]
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Shortest-path tables for all nodes. `is_host[n]` marks nodes that do not
/// forward.
pub fn shortest_paths(adj: &Adjacency, is_host: &[bool]) -> Vec<RouteTable> {
    let n = adj.len();
    let mut tables = vec![RouteTable::default(); n];
    let mut queue = std::collections::VecDeque::new();
    for src in 0..n {
        let links = adj.of(src as u32);
        match links.len() {
            0 => {}
            1 => tables[src].default = Some(links[0].0),
            _ => {
                let mut first = vec![NO_ROUTE; n];
                let mut seen = vec![false; n];
                seen[src] = true;
                queue.clear();
                for &(ld, nb) in links {
                    if !seen[nb as usize] {
                        seen[nb as usize] = true;
                        first[nb as usize] = ld;
                        queue.push_back(nb);
                    }
                }
                while let Some(u) = queue.pop_front() {
                    if is_host[u as usize] {
                        continue;
                    }
                    let hop = first[u as usize];
                    for &(_, v) in adj.of(u) {
                        if !seen[v as usize] {
                            seen[v as usize] = true;
                            first[v as usize] = hop;
                            queue.push_back(v);
                        }
                    }
                }
                tables[src].table = first;
            }
        }
    }
    tables
}

/// Sets one explicit route, materializing a full table for a single-link node.
pub fn set_route(tables: &mut [RouteTable], node: u32, dst: u32, ld: u32) {
    let n = tables.len();
    let t = &mut tables[node as usize];
    if t.table.is_empty() {
        let d = t.default.unwrap_or(NO_ROUTE);
        t.table = vec![d; n];
    }
    t.table[dst as usize] = ld;
}

/// Follows the tables from `src` to `dst`. Returns the link directions
/// crossed, or a description of why the packet cannot get there.
pub fn path(
    tables: &[RouteTable],
    link_to: &[u32],
    is_host: &[bool],
    src: u32,
    dst: u32,
) -> Result<Vec<u32>, String> {
    let mut hops = Vec::new();
    walk(tables, link_to, is_host, src, dst, |ld| hops.push(ld))?;
    Ok(hops)
}

/// As [`path`], handing each link direction crossed to `hop` instead of
/// collecting them.
pub fn walk(
    tables: &[RouteTable],
    link_to: &[u32],
    is_host: &[bool],
    src: u32,
    dst: u32,
    mut hop: impl FnMut(u32),
) -> Result<(), String> {
    let mut u = src;
    let mut prev = NO_ROUTE;
    let mut hops = 0usize;
    while u != dst {
        if hops > tables.len() {
            return Err("the routes form a loop".into());
        }
        if u != src && is_host[u as usize] {
            return Err(format!(
                "the path would pass through host #{u}, and hosts do not forward"
            ));
        }
        let t = &tables[u as usize];
        let ld = t.next(dst);
        // A node with one link sends everything over it: a router at a dead
        // end sends the packet back where it came from. Reached by another
        // node's one link (a host's, to the router it hangs from), that is
        // no route at all, not a loop of the routes; reached by a route a
        // table chose (an explicit one), the loop is the routes'.
        let bounced = t.table.is_empty()
            && u != src
            && link_to[ld as usize] == prev
            && tables[prev as usize].table.is_empty();
        if ld == NO_ROUTE || bounced {
            return Err("they are not connected".into());
        }
        hop(ld);
        hops += 1;
        prev = u;
        u = link_to[ld as usize];
    }
    Ok(())
}

/// Whether `src` reaches `dst` through any nodes, hosts included (to explain
/// why a path through a host is refused).
pub fn connected_through_hosts(adj: &Adjacency, src: u32, dst: u32) -> bool {
    let mut seen = vec![false; adj.len()];
    let mut stack = vec![src];
    seen[src as usize] = true;
    while let Some(u) = stack.pop() {
        if u == dst {
            return true;
        }
        for &(_, v) in adj.of(u) {
            if !seen[v as usize] {
                seen[v as usize] = true;
                stack.push(v);
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a - r1 - r2 - b, plus a second path r1 - r3 - r4 - r2 (longer).
    fn chain() -> (Adjacency, Vec<bool>, Vec<u32>) {
        // nodes: 0 a, 1 b, 2 r1, 3 r2, 4 r3, 5 r4
        let edges = [(0, 2), (2, 3), (3, 1), (2, 4), (4, 5), (5, 3)];
        let adj = Adjacency::new(6, &edges);
        let to: Vec<u32> = edges.iter().flat_map(|&(x, y)| [y, x]).collect();
        let is_host = vec![true, true, false, false, false, false];
        (adj, is_host, to)
    }

    #[test]
    fn a_router_at_a_dead_end_is_not_connected_not_a_loop() {
        // a - r1, r2 - b: r1 and r2 have one link each.
        let edges = [(0, 2), (3, 1)];
        let adj = Adjacency::new(4, &edges);
        let to: Vec<u32> = edges.iter().flat_map(|&(x, y)| [y, x]).collect();
        let h = vec![true, true, false, false];
        let t = shortest_paths(&adj, &h);
        assert_eq!(
            path(&t, &to, &h, 0, 1).unwrap_err(),
            "they are not connected"
        );
        // a - r - b, and a dead end r2 off r that an explicit route at r
        // sends a's packets to: connected, but the routes loop.
        let edges = [(0, 2), (2, 1), (2, 3)];
        let adj = Adjacency::new(4, &edges);
        let to: Vec<u32> = edges.iter().flat_map(|&(x, y)| [y, x]).collect();
        let mut t = shortest_paths(&adj, &h);
        set_route(&mut t, 2, 0, 4);
        assert_eq!(
            path(&t, &to, &h, 1, 0).unwrap_err(),
            "the routes form a loop"
        );
        assert_eq!(path(&t, &to, &h, 0, 1).unwrap(), vec![0, 2]);
    }

    #[test]
    fn picks_the_shortest_path() {
        let (adj, h, to) = chain();
        let t = shortest_paths(&adj, &h);
        assert_eq!(path(&t, &to, &h, 0, 1).unwrap(), vec![0, 2, 4]);
        assert_eq!(path(&t, &to, &h, 1, 0).unwrap(), vec![5, 3, 1]);
    }

    #[test]
    fn explicit_route_overrides() {
        let (adj, h, to) = chain();
        let mut t = shortest_paths(&adj, &h);
        // r1 -> r3 for b; r3 must be told too, or its shortest path (tie
        // broken towards r1, its first link) would send b's packets back.
        set_route(&mut t, 2, 1, 6);
        set_route(&mut t, 4, 1, 8);
        assert_eq!(path(&t, &to, &h, 0, 1).unwrap(), vec![0, 6, 8, 10, 4]);
    }

    #[test]
    fn loops_and_islands_are_reported() {
        let (adj, h, to) = chain();
        let mut t = shortest_paths(&adj, &h);
        set_route(&mut t, 3, 1, 3); // r2 sends b's packets back to r1
        assert!(path(&t, &to, &h, 0, 1).unwrap_err().contains("loop"));
        let adj2 = Adjacency::new(2, &[]);
        let t2 = shortest_paths(&adj2, &[true, true]);
        assert!(path(&t2, &[], &[true, true], 0, 1)
            .unwrap_err()
            .contains("not connected"));
    }
}
