// Stage coloring: Jones-Plassmann rounds with first-fit colours on the contact
// graph (contacts adjacent when they share a movable grain). One invocation
// per grain, over the contacts it owns (lower grain of a pair, or a wall); the
// owner writes both copies. CPU twin: cpu::coloring (same names).
//   init:  owned copies and their mirrors UNCOLORED, orphaned copies OVERFLOW_COLOR
//   round: color_in -> color_out; an uncoloured contact whose priority beats
//          every uncoloured neighbour takes the lowest colour free among its
//          coloured neighbours (64-bit mask); every owned copy and its mirror
//          are rewritten each round, so no copy between rounds is needed
//   count: [colours, uncoloured, overflow] into color_stats (atomics); overflow =
//          contacts the overflow pass solves: owned copies in OVERFLOW_COLOR, and
//          orphans (non-owned copies whose owner's full list dropped the contact)

const WALL: u32 = BODY_SEGMENT | BODY_CORNER;
const NONE: u32 = 0xffffffffu;

// cpu::coloring::hash (lowbias32).
fn hash(x0: u32) -> u32 {
    var x = x0;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

fn key(i: u32, other: u32) -> vec2<u32> {
    if (other & WALL) == 0u {
        return vec2<u32>(min(i, other), max(i, other));
    }
    return vec2<u32>(i, other);
}

fn priority(k: vec2<u32>) -> vec3<u32> {
    return vec3<u32>(hash(k.x ^ hash(k.y)), k.x, k.y);
}

// a < b lexicographically.
fn less(a: vec3<u32>, b: vec3<u32>) -> bool {
    if a.x != b.x {
        return a.x < b.x;
    }
    if a.y != b.y {
        return a.y < b.y;
    }
    return a.z < b.z;
}

fn owns(i: u32, other: u32) -> bool {
    return (other & WALL) != 0u || other > i;
}

fn listed(g: u32) -> u32 {
    return min(count[g], CAPACITY);
}

// Whether grain g's list holds a contact with grain a.
fn lists(g: u32, a: u32) -> bool {
    for (var t = 0u; t < listed(g); t++) {
        if slots[g * CAPACITY + t].other == a {
            return true;
        }
    }
    return false;
}

fn first_free(mask: vec2<u32>) -> u32 {
    if mask.x != 0xffffffffu {
        return countTrailingZeros(~mask.x);
    }
    if mask.y != 0xffffffffu {
        return 32u + countTrailingZeros(~mask.y);
    }
    return OVERFLOW_COLOR;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn coloring_init(inv: Invocation) {
    let i = flat_index(inv);
    if i >= params.n_grains { return; }
    for (var s = 0u; s < listed(i); s++) {
        let o = slots[i * CAPACITY + s].other;
        var col = UNCOLORED;
        if !owns(i, o) {
            var found = false;
            for (var t = 0u; t < listed(o); t++) {
                found = found || slots[o * CAPACITY + t].other == i;
            }
            if !found {
                col = OVERFLOW_COLOR;
            }
        }
        color_out[i * CAPACITY + s] = col;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn coloring_round(inv: Invocation) {
    let a = flat_index(inv);
    if a >= params.n_grains { return; }
    for (var s = 0u; s < listed(a); s++) {
        let b = slots[a * CAPACITY + s].other;
        if !owns(a, b) {
            continue;
        }
        let mine = key(a, b);
        let me = priority(mine);
        let pair = (b & WALL) == 0u;
        var col = color_in[a * CAPACITY + s];
        var mask = vec2<u32>(0u, 0u);
        var wins = true;
        var mirror = NONE;
        // Neighbours through a (if movable), then b (if a movable grain); the
        // mirror is looked up in b's list whether b moves or not.
        for (var side = 0u; side < 2u; side++) {
            var g = a;
            if side == 1u {
                if !pair {
                    break;
                }
                g = b;
            }
            let movable = inv_mass[g] != 0.0;
            for (var t = 0u; t < listed(g); t++) {
                let kt = key(g, slots[g * CAPACITY + t].other);
                if all(kt == mine) {
                    if g != a {
                        mirror = g * CAPACITY + t;
                    }
                    continue;
                }
                if !movable {
                    continue;
                }
                let ct = color_in[g * CAPACITY + t];
                if ct == UNCOLORED {
                    wins = wins && less(priority(kt), me);
                } else if ct < MAX_COLORS {
                    if ct < 32u {
                        mask.x |= 1u << ct;
                    } else {
                        mask.y |= 1u << (ct - 32u);
                    }
                }
            }
        }
        if col == UNCOLORED && wins {
            if pair && mirror == NONE {
                col = OVERFLOW_COLOR;
            } else {
                col = first_free(mask);
            }
        }
        color_out[a * CAPACITY + s] = col;
        if mirror != NONE {
            color_out[mirror] = col;
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn coloring_count(inv: Invocation) {
    let a = flat_index(inv);
    if a >= params.n_grains { return; }
    var colors = 0u;
    var uncolored = 0u;
    var overflow = 0u;
    for (var s = 0u; s < listed(a); s++) {
        let other = slots[a * CAPACITY + s].other;
        if !owns(a, other) {
            // cpu::coloring::is_orphan
            if color_in[a * CAPACITY + s] == OVERFLOW_COLOR && !lists(other, a) {
                overflow += 1u;
            }
            continue;
        }
        let col = color_in[a * CAPACITY + s];
        if col == UNCOLORED {
            uncolored += 1u;
        } else if col == OVERFLOW_COLOR {
            overflow += 1u;
        } else {
            colors = max(colors, col + 1u);
        }
    }
    if colors > 0u {
        atomicMax(&color_stats[0], colors);
    }
    if uncolored > 0u {
        atomicAdd(&color_stats[1], uncolored);
    }
    if overflow > 0u {
        atomicAdd(&color_stats[2], overflow);
    }
}
