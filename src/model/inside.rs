//! The inside of closed triangle surfaces: which side of each mesh face
//! holds the spheres, as a closed outline holds the disks in the plane
//! (model::walls).
//!
//! ```text
//!   surface:  faces joined across edges that have exactly two faces
//!   closed:   every edge of its faces has two faces, and the faces can be
//!             turned to one orientation (each shared edge run both ways)
//!   volume:   V = sum over its oriented faces of (a - o) . ((b - o) x (c - o)) / 6,
//!             positive when the oriented normals point out of it
//!   nesting:  a closed surface inside an odd number of others bounds a
//!             hole (an obstacle in a container): its inside is its outside
//!             (even-odd, as the plane's inside test)
//! ```
//! Containment is the winding number of a point of one surface about
//! another (the sum of its faces' solid angles over 4 pi: 1 inside, 0
//! outside). A face on no closed surface (an open sheet, a funnel, a
//! surface with an edge of three faces, a gate) stays two-sided. Written
//! by hand: the surfaces are the mesh's own, joined by the vertex indices
//! `Walls3d::mesh` has already merged.

use std::collections::HashMap;

type P = [f64; 3];

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn det(a: P, b: P, c: P) -> f64 {
    dot(
        a,
        [
            b[1] * c[2] - b[2] * c[1],
            b[2] * c[0] - b[0] * c[2],
            b[0] * c[1] - b[1] * c[0],
        ],
    )
}

/// The solid angle of triangle (a, b, c) seen from the origin, signed by
/// its orientation (Van Oosterom and Strackee's formula).
fn solid_angle(a: P, b: P, c: P) -> f64 {
    let (la, lb, lc) = (dot(a, a).sqrt(), dot(b, b).sqrt(), dot(c, c).sqrt());
    let den = la * lb * lc + dot(a, b) * lc + dot(a, c) * lb + dot(b, c) * la;
    2.0 * det(a, b, c).atan2(den)
}

/// The winding number of the oriented triangles `faces` about `x`: the sum
/// of their solid angles over 4 pi; for a closed surface, 1 at a point
/// within it when its normals (b - a) x (c - a) point out of it, -1 when
/// they point in, 0 outside it.
pub fn winding(faces: impl Iterator<Item = [P; 3]>, x: P) -> f64 {
    let total: f64 = faces
        .map(|[a, b, c]| solid_angle(sub(a, x), sub(b, x), sub(c, x)))
        .sum();
    total / (4.0 * std::f64::consts::PI)
}

/// One surface: its faces with their orientation (+1 as given, -1 turned)
/// and whether it is closed.
struct Surface {
    faces: Vec<(usize, f64)>,
    closed: bool,
}

/// The surfaces of `faces` (corner indices into `points`), joined across
/// edges of two faces.
fn surfaces(faces: &[[u32; 3]]) -> Vec<Surface> {
    let key = |p: u32, q: u32| (p.min(q), p.max(q));
    let mut edges: HashMap<(u32, u32), Vec<(usize, bool)>> = HashMap::new();
    for (f, t) in faces.iter().enumerate() {
        for k in 0..3 {
            let (p, q) = (t[k], t[(k + 1) % 3]);
            edges.entry(key(p, q)).or_default().push((f, p < q));
        }
    }
    let mut orient = vec![0.0f64; faces.len()];
    let mut out = Vec::new();
    for start in 0..faces.len() {
        if orient[start] != 0.0 {
            continue;
        }
        orient[start] = 1.0;
        let mut s = Surface {
            faces: Vec::new(),
            closed: true,
        };
        let mut stack = vec![start];
        while let Some(f) = stack.pop() {
            s.faces.push((f, orient[f]));
            let t = faces[f];
            for k in 0..3 {
                let (p, q) = (t[k], t[(k + 1) % 3]);
                let incident = &edges[&key(p, q)];
                let Some(&(g, g_forward)) = incident.iter().find(|(g, _)| *g != f) else {
                    s.closed = false;
                    continue;
                };
                if incident.len() != 2 {
                    s.closed = false;
                    continue;
                }
                // One orientation runs a shared edge both ways.
                let want = if g_forward == (p < q) { -orient[f] } else { orient[f] };
                if orient[g] == 0.0 {
                    orient[g] = want;
                    stack.push(g);
                } else if orient[g] != want {
                    s.closed = false;
                }
            }
        }
        out.push(s);
    }
    out
}

/// Which side of the closed surfaces holds the spheres (a scene's
/// `walls.closed_side`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Hold {
    /// The outermost closed surfaces hold the spheres inside them, the
    /// surfaces nested in them outside, and so on (even-odd).
    #[default]
    Inside,
    /// The other way round: the outermost closed surfaces are obstacles
    /// that hold the spheres outside them (among planes or in a box).
    Outside,
    /// Every face two-sided: no face pushes a sphere that crossed it back.
    Both,
}

/// For each face of `faces` (corner indices into `points`), the side of
/// its normal (b - a) x (c - a) that holds the spheres under `hold`: 1
/// along it, -1 against it, 0 for a face on no closed surface (or every
/// face under [`Hold::Both`]). [`Hold::Outside`] turns every side of
/// [`Hold::Inside`].
pub fn sides_holding(faces: &[[u32; 3]], points: &[P], hold: Hold) -> Vec<f32> {
    match hold {
        Hold::Inside => sides(faces, points),
        Hold::Outside => sides(faces, points).into_iter().map(|s| -s).collect(),
        Hold::Both => vec![0.0; faces.len()],
    }
}

/// For each face of `faces` (corner indices into `points`), the side of
/// its normal (b - a) x (c - a) that holds the inside of its closed
/// surface: 1 along it, -1 against it, 0 for a face on no closed surface.
pub fn sides(faces: &[[u32; 3]], points: &[P]) -> Vec<f32> {
    let corners = |f: usize| faces[f].map(|i| points[i as usize]);
    let closed: Vec<(Surface, f64)> = surfaces(faces)
        .into_iter()
        .filter(|s| s.closed)
        .filter_map(|s| {
            let o = corners(s.faces[0].0)[0];
            let volume: f64 = (s.faces.iter())
                .map(|&(f, w)| {
                    let [a, b, c] = corners(f);
                    w * det(sub(a, o), sub(b, o), sub(c, o))
                })
                .sum();
            (volume != 0.0 && volume.is_finite()).then_some((s, volume.signum()))
        })
        .collect();
    // The winding number of `x` about surface `d`: 1 inside, 0 outside.
    let winding_about = |x: P, (d, outward): &(Surface, f64)| {
        let oriented = (d.faces.iter()).map(|&(f, w)| {
            let [a, b, c] = corners(f);
            if w > 0.0 { [a, b, c] } else { [a, c, b] }
        });
        outward * winding(oriented, x)
    };
    let mut out = vec![0.0f32; faces.len()];
    for (k, (s, outward)) in closed.iter().enumerate() {
        let [a, b, c] = corners(s.faces[0].0);
        let centroid = [0, 1, 2].map(|i| (a[i] + b[i] + c[i]) / 3.0);
        let around = (closed.iter().enumerate())
            .filter(|(j, d)| *j != k && winding_about(centroid, d) > 0.5)
            .count();
        // The inside is the surface's interior, or past an even nesting its exterior.
        let interior = if around % 2 == 0 { -1.0 } else { 1.0 };
        for &(f, w) in &s.faces {
            out[f] = (interior * w * outward) as f32;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cube [lo, hi]^3 as twelve faces (corner indices from `base`),
    /// the first `turned` faces listed against the others' orientation.
    fn cube(lo: f64, hi: f64, base: u32, turned: usize) -> (Vec<[u32; 3]>, Vec<P>) {
        let points: Vec<P> = (0..8)
            .map(|i| [i & 1, i >> 1 & 1, i >> 2 & 1].map(|b| if b == 1 { hi } else { lo }))
            .collect();
        let quads = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        let mut faces = Vec::new();
        for q in quads {
            faces.push([q[0], q[1], q[2]].map(|i| i + base));
            faces.push([q[0], q[2], q[3]].map(|i| i + base));
        }
        for f in faces.iter_mut().take(turned) {
            f.swap(1, 2);
        }
        (faces, points)
    }

    /// The side a face's inside lies on, as a unit vector from the face.
    fn inward(faces: &[[u32; 3]], points: &[P], sides: &[f32], f: usize) -> P {
        let [a, b, c] = faces[f].map(|i| points[i as usize]);
        let (u, v) = (sub(b, a), sub(c, a));
        let m = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        m.map(|x| x * f64::from(sides[f]))
    }

    #[test]
    fn a_closed_cube_faces_its_inside_whatever_its_faces_orientation() {
        for turned in [0, 5, 12] {
            let (faces, points) = cube(0.0, 1.0, 0, turned);
            let s = sides(&faces, &points);
            for f in 0..faces.len() {
                let [a, b, c] = faces[f].map(|i| points[i as usize]);
                let centroid = [0, 1, 2].map(|i| (a[i] + b[i] + c[i]) / 3.0);
                // From the face towards the cube's centre.
                let towards = sub([0.5; 3], centroid);
                assert!(
                    dot(inward(&faces, &points, &s, f), towards) > 0.0,
                    "turned {turned}: face {f}"
                );
            }
        }
    }

    /// The cube [1, 2]^3 (its first `turned` faces turned) in the cube [0, 3]^3.
    fn cube_in_cube(turned: usize) -> (Vec<[u32; 3]>, Vec<P>) {
        let (mut faces, mut points) = cube(0.0, 3.0, 0, 0);
        let (inner, inner_points) = cube(1.0, 2.0, 8, turned);
        faces.extend(inner);
        points.extend(inner_points);
        (faces, points)
    }

    #[test]
    fn outside_turns_every_side_and_both_clears_them() {
        let (faces, points) = cube_in_cube(5);
        let inside = sides(&faces, &points);
        assert_eq!(sides_holding(&faces, &points, Hold::Inside), inside);
        let outside = sides_holding(&faces, &points, Hold::Outside);
        assert!(inside.iter().zip(&outside).all(|(i, o)| i.abs() == 1.0 && *o == -i));
        assert_eq!(sides_holding(&faces, &points, Hold::Both), vec![0.0; 24]);
    }

    #[test]
    fn a_cube_inside_a_cube_faces_the_space_between_them() {
        let (faces, points) = cube_in_cube(3);
        let s = sides(&faces, &points);
        for f in 0..faces.len() {
            let [a, b, c] = faces[f].map(|i| points[i as usize]);
            let centroid = [0, 1, 2].map(|i| (a[i] + b[i] + c[i]) / 3.0);
            let towards = sub([1.5; 3], centroid);
            let along = dot(inward(&faces, &points, &s, f), towards);
            // The outer cube's faces towards the centre, the inner's away from it.
            assert!(if f < 12 { along > 0.0 } else { along < 0.0 }, "face {f}: {along}");
        }
    }

    #[test]
    fn open_and_branching_surfaces_stay_two_sided() {
        // A box without its lid.
        let (faces, points) = cube(0.0, 1.0, 0, 0);
        let open: Vec<[u32; 3]> = faces[2..].to_vec();
        assert!(sides(&open, &points).iter().all(|&s| s == 0.0));
        // A closed cube with a fin on one of its edges: that edge has three faces.
        let mut points = points;
        points.push([0.5, -1.0, -1.0]);
        let mut branching = faces.clone();
        branching.push([0, 1, 8]);
        let s = sides(&branching, &points);
        assert!(s.iter().all(|&s| s == 0.0), "{s:?}");
        // The cube alone is closed.
        assert!(sides(&faces, &points[..8]).iter().all(|&s| s != 0.0));
    }
}
