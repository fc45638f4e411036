//! The fill in three dimensions: spheres placed one by one into the lowest
//! pocket, as the plane's fill places disks (`scene::fill`), overlap-free
//! and the same for the same radii.
//!
//! ```text
//!   pocket: the centre of a sphere of radius R resting on three supports
//!           (placed spheres, or wall faces: planes and mesh triangles taken
//!           as their planes), the upper of the two solutions:
//!     |x - c_k| = r_k + R + c       for a sphere support
//!     (x - p_k).n_k = R + c         for a face, n_k towards the grains
//!   it holds when the centre is inside the region, clear of every placed
//!   sphere (|x - c_j| >= r_j + R + c/2) and wall (gap >= c/2), and rests:
//!   its projection on the floor (x, z) lies in the triangle of the three
//!   contact points' projections (a sphere supported there does not roll).
//!   for each sphere (radius r, in the order given):
//!       pop the lowest pocket; solve it again for r; it holds -> place the
//!       sphere there; it does not, but the largest sphere's centre there
//!       is still clear -> place it at that centre (a smaller sphere in a
//!       pocket made for a larger one); otherwise drop the pocket. Then queue
//!       the pockets the new sphere makes with every pair of supports near it
//!   the first sphere: the lowest point of a lattice of spacing r/2 over
//!   the region where it is inside and clear (the first in x, then z),
//!   lowered onto what lies below where the region says so
//!   no pocket left: the lowest clear point of a lattice of spacing r_max/2,
//!   lowered onto what lies below (a curved mesh, whose faces taken as
//!   planes make few pockets that hold)
//! ```
//! Pockets are queued where they hold the largest sphere, lowest first
//! (ties in the order they were made), so "lowest" holds up to the spread
//! of radii. c is the
//! [`clearance`]: 16 f32 epsilons of the region's extent, which the
//! single-precision walls resolve. A grid of cells one largest diameter wide
//! holds the placed spheres.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use crate::model::Walls3d;

/// Where spheres may go: inside the box `lo`..`hi`, where `inside` says so,
/// clear of `walls`.
pub struct FillRegion3d<'a> {
    pub lo: [f64; 3],
    pub hi: [f64; 3],
    pub walls: &'a Walls3d,
    /// The container's inside (a closed mesh's, or any shape's), beyond the box.
    pub inside: &'a dyn Fn([f64; 3]) -> bool,
    /// Lower the first sphere from its lattice point until it touches what
    /// lies below (a curved mesh floor: a first sphere hovering above it
    /// makes no pocket that holds); false keeps it at the lattice point.
    pub lower_first: bool,
}

/// The gap the fill keeps between spheres and from walls, m: 16 f32
/// epsilons of the region's largest extent.
pub fn clearance(region: &FillRegion3d) -> f64 {
    let extent = (0..3)
        .map(|k| region.hi[k].abs().max(region.lo[k].abs()))
        .fold(0.0, f64::max);
    16.0 * f64::from(f32::EPSILON) * extent.max(1e-3)
}

/// A support of a pocket: a placed sphere or a wall face.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Support {
    Sphere(u32),
    /// Face k of the fill's faces (planes, then triangles), its normal
    /// turned when the flag is set (towards the grains).
    Face(u32, bool),
}

/// A face as a point of it and its unit normal.
type Face = ([f64; 3], [f64; 3]);

#[derive(Debug, Clone, Copy)]
struct Pocket {
    y: f64,
    order: u64,
    supports: [Support; 3],
}

impl PartialEq for Pocket {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Pocket {}
impl PartialOrd for Pocket {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pocket {
    /// The lowest first out of a max-heap, then the earliest made.
    fn cmp(&self, o: &Self) -> Ordering {
        o.y.total_cmp(&self.y).then(o.order.cmp(&self.order))
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// Two unit vectors orthogonal to unit `u` and to each other.
fn frame(u: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let t = if u[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let a = cross(u, t);
    let a = scale(a, 1.0 / norm(a));
    (a, cross(u, a))
}

/// The upper of the points in the list (largest y), and the other too
/// when it is as high (two mirror places, as beside two spheres on a floor).
fn upper(points: impl IntoIterator<Item = [f64; 3]>) -> Vec<[f64; 3]> {
    let mut p: Vec<[f64; 3]> = points.into_iter().collect();
    p.sort_by(|a, b| b[1].total_cmp(&a[1]));
    if p.len() == 2 && (p[0][1] - p[1][1]).abs() > 1e-12 * (1.0 + p[0][1].abs()) {
        p.truncate(1);
    }
    p
}

/// The circle where spheres (c1, r1) and (c2, r2) meet: centre, unit axis, radius.
fn circle(c1: [f64; 3], r1: f64, c2: [f64; 3], r2: f64) -> Option<([f64; 3], [f64; 3], f64)> {
    let d = sub(c2, c1);
    let l = norm(d);
    if l == 0.0 || l > r1 + r2 || l < (r1 - r2).abs() {
        return None;
    }
    let u = scale(d, 1.0 / l);
    let s = (l * l + r1 * r1 - r2 * r2) / (2.0 * l);
    let h2 = r1 * r1 - s * s;
    (h2 >= 0.0).then(|| (add(c1, scale(u, s)), u, h2.sqrt()))
}

/// Points of the circle (m, u, rho) on the plane x.n = e.
fn circle_plane(m: [f64; 3], u: [f64; 3], rho: f64, n: [f64; 3], e: f64) -> Vec<[f64; 3]> {
    let (a, b) = frame(u);
    // n.m + rho (cos t n.a + sin t n.b) = e
    let (p, q, w) = (rho * dot(n, a), rho * dot(n, b), e - dot(n, m));
    let amp = p.hypot(q);
    if amp == 0.0 || w.abs() > amp {
        return Vec::new();
    }
    let phase = q.atan2(p);
    let spread = (w / amp).clamp(-1.0, 1.0).acos();
    [phase + spread, phase - spread]
        .iter()
        .map(|t| add(m, add(scale(a, rho * t.cos()), scale(b, rho * t.sin()))))
        .collect()
}

/// The centres resting on `supports` for a sphere of radius `r` (gap
/// `c`): the upper solution, and its mirror image when level with it;
/// empty where they do not meet.
fn solve(supports: &[Support; 3], r: f64, c: f64, (pos, radius, all): (&[[f64; 3]], &[f64], &[Face])) -> Vec<[f64; 3]> {
    let mut spheres = Vec::with_capacity(3);
    let mut faces = Vec::with_capacity(3);
    for s in supports {
        match *s {
            Support::Sphere(j) => spheres.push((pos[j as usize], radius[j as usize] + r + c)),
            Support::Face(k, turned) => {
                let (p, n) = face(all, k, turned);
                faces.push((n, dot(n, p) + r + c));
            }
        }
    }
    match (spheres.len(), faces.len()) {
        (3, 0) => {
            let Some((m, u, rho)) = circle(spheres[0].0, spheres[0].1, spheres[1].0, spheres[1].1) else {
                return Vec::new();
            };
            // The third sphere meets the circle's plane in a circle; the
            // radical plane of spheres 1 and 3 cuts the circle in two points.
            let (c1, r1) = spheres[0];
            let (c3, r3) = spheres[2];
            let n = sub(c3, c1);
            let e = (dot(c3, c3) - dot(c1, c1) - r3 * r3 + r1 * r1) / 2.0;
            upper(circle_plane(m, u, rho, n, e))
        }
        (2, 1) => {
            let Some((m, u, rho)) = circle(spheres[0].0, spheres[0].1, spheres[1].0, spheres[1].1) else {
                return Vec::new();
            };
            upper(circle_plane(m, u, rho, faces[0].0, faces[0].1))
        }
        (1, 2) => {
            let ((n1, e1), (n2, e2)) = (faces[0], faces[1]);
            let w = cross(n1, n2);
            let ww = dot(w, w);
            if ww < 1e-12 {
                return Vec::new();
            }
            // A point of both planes: q = (e1 n2 x w + e2 w x n1) / |w|^2.
            let q = scale(add(scale(cross(n2, w), e1), scale(cross(w, n1), e2)), 1.0 / ww);
            let (cs, rs) = spheres[0];
            let d = sub(q, cs);
            let (a, b, k) = (ww, 2.0 * dot(d, w), dot(d, d) - rs * rs);
            let disc = b * b - 4.0 * a * k;
            if disc < 0.0 {
                return Vec::new();
            }
            let t = [(-b + disc.sqrt()) / (2.0 * a), (-b - disc.sqrt()) / (2.0 * a)];
            upper(t.map(|t| add(q, scale(w, t))))
        }
        _ => Vec::new(),
    }
}

/// Face `k` of `all`, its normal turned when `turned`.
fn face(all: &[Face], k: u32, turned: bool) -> Face {
    let (p, n) = all[k as usize];
    (p, if turned { scale(n, -1.0) } else { n })
}

/// Where a sphere of radius `r` at `x` touches support `s`.
fn contact_point(s: &Support, x: [f64; 3], r: f64, (pos, radius, all): (&[[f64; 3]], &[f64], &[Face])) -> [f64; 3] {
    match *s {
        Support::Sphere(j) => {
            let (c, rj) = (pos[j as usize], radius[j as usize]);
            add(x, scale(sub(c, x), r / (r + rj)))
        }
        Support::Face(k, turned) => sub(x, scale(face(all, k, turned).1, r)),
    }
}

/// Whether the floor projection of `x` lies in the triangle of the contact
/// points' projections (on its edges included, within `tol`).
fn rests(x: [f64; 3], contacts: &[[f64; 3]; 3], tol: f64) -> bool {
    let p = |v: [f64; 3]| [v[0] - x[0], v[2] - x[2]];
    let (a, b, c) = (p(contacts[0]), p(contacts[1]), p(contacts[2]));
    let side = |u: [f64; 2], v: [f64; 2]| u[0] * v[1] - u[1] * v[0];
    let (s1, s2, s3) = (side(a, b), side(b, c), side(c, a));
    (s1 >= -tol && s2 >= -tol && s3 >= -tol) || (s1 <= tol && s2 <= tol && s3 <= tol)
}

/// The spheres of `radii` placed in `region` (see the module doc): the
/// centres of those that found a place, in the order of `radii` (the first
/// that found none ends the fill).
pub fn deposit(radii: &[f64], region: &FillRegion3d) -> Vec<[f64; 3]> {
    let Some(r_max) = radii.iter().copied().reduce(f64::max) else {
        return Vec::new();
    };
    let c = clearance(region);
    let cell = 2.0 * r_max + 2.0 * c;
    let key = |x: [f64; 3]| x.map(|v| (v / cell).floor() as i64);
    let walls = region.walls.clone().indexed((r_max + c) as f32 * 1.01);
    let faces: Vec<Face> = walls
        .planes
        .iter()
        .map(|p| (p.point.map(f64::from), p.normal.map(f64::from)))
        .chain(
            walls
                .triangles
                .iter()
                .map(|t| (t.a.map(f64::from), t.normal.map(f64::from))),
        )
        .collect();
    let mut fill = Placed {
        region,
        walls: &walls,
        c,
        cell,
        grid: HashMap::new(),
        pos: Vec::new(),
        radius: Vec::new(),
    };
    let mut lattice = Lattice::new(region, r_max);
    let mut heap = BinaryHeap::new();
    let mut order = 0u64;
    for (i, &r) in radii.iter().enumerate() {
        let mut spot = None;
        if i == 0 {
            spot = first_spot(region, r, &|x| fill.clear(x, r));
            if region.lower_first {
                spot = spot.map(|x| lowered(x, 0.5 * r, c, &|x| fill.clear(x, r)));
            }
        }
        while spot.is_none() {
            let Some(p) = heap.pop() else { break };
            let p: Pocket = p;
            spot = fill
                .holds(&p.supports, r, r, &faces)
                .or_else(|| fill.holds(&p.supports, r_max, r, &faces));
        }
        if spot.is_none() {
            // No pocket holds (a curved mesh floor, where faces taken as
            // planes seldom make one): the lowest clear lattice point,
            // lowered onto what lies below it.
            spot =
                (lattice.next_clear(&|x| fill.clear(x, r))).map(|x| lowered(x, 0.5 * r_max, c, &|x| fill.clear(x, r)));
        }
        let Some(x) = spot else { break };
        let me = fill.pos.len() as u32;
        fill.pos.push(x);
        fill.radius.push(r);
        fill.grid.entry(key(x)).or_default().push(me);
        // The supports a pocket of the new sphere may also rest on: spheres
        // that a sphere of the largest radius can touch together with it,
        // and faces it can touch.
        let mut near: Vec<Support> = Vec::new();
        let k = key(x);
        for dz in -2..=2 {
            for dy in -2..=2 {
                for dx in -2..=2 {
                    for &j in fill.grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz]).into_iter().flatten() {
                        let reach = r + fill.radius[j as usize] + 2.0 * (r_max + c);
                        if j != me && norm(sub(x, fill.pos[j as usize])) < reach {
                            near.push(Support::Sphere(j));
                        }
                    }
                }
            }
        }
        for (f, &(p, n)) in faces.iter().enumerate() {
            let d = dot(sub(x, p), n);
            if d.abs() < r + 2.0 * (r_max + c) {
                near.push(Support::Face(f as u32, d < 0.0));
            }
        }
        for a in 0..near.len() {
            for b in a + 1..near.len() {
                if let (Support::Sphere(ja), Support::Sphere(jb)) = (near[a], near[b]) {
                    let (ja, jb) = (ja as usize, jb as usize);
                    let reach = fill.radius[ja] + fill.radius[jb] + 2.0 * (r_max + c);
                    if norm(sub(fill.pos[ja], fill.pos[jb])) >= reach {
                        continue;
                    }
                }
                let supports = [Support::Sphere(me), near[a], near[b]];
                if let Some(y) = fill.holds(&supports, r_max, r_max, &faces) {
                    heap.push(Pocket {
                        y: y[1],
                        order,
                        supports,
                    });
                    order += 1;
                }
            }
        }
    }
    fill.pos
}

/// The spheres placed so far, binned in cells one largest diameter wide.
struct Placed<'a> {
    region: &'a FillRegion3d<'a>,
    walls: &'a Walls3d,
    c: f64,
    cell: f64,
    grid: HashMap<[i64; 3], Vec<u32>>,
    pos: Vec<[f64; 3]>,
    radius: Vec<f64>,
}

impl Placed<'_> {
    /// A sphere of radius `r` at `x` is inside the region and clear of
    /// every placed sphere and wall.
    fn clear(&self, x: [f64; 3], r: f64) -> bool {
        let region = self.region;
        if (0..3).any(|k| x[k] - r < region.lo[k] || x[k] + r > region.hi[k]) {
            return false;
        }
        let k = x.map(|v| (v / self.cell).floor() as i64);
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    for &j in self.grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz]).into_iter().flatten() {
                        let d = sub(x, self.pos[j as usize]);
                        let need = r + self.radius[j as usize] + 0.5 * self.c;
                        if dot(d, d) < need * need {
                            return false;
                        }
                    }
                }
            }
        }
        let walls = self.walls;
        let xf = x.map(|v| v as f32);
        let (rf, cf) = (r as f32, (0.5 * self.c) as f32);
        if !walls.planes.iter().all(|p| p.distance(xf) - rf >= cf) {
            return false;
        }
        // Beyond r + c/2 of a body's box, it is clear of it.
        let (reach, mut clear) = ((rf + cf) * 1.0001, true);
        walls.near_mesh(xf, reach, |b| {
            clear &= walls.mesh_gap(b, xf, rf, reach).is_none_or(|(_, _, g)| g >= cf);
        });
        // Last: a mesh's inside counts every face.
        clear && (region.inside)(x)
    }

    /// The centre of a sphere of radius `fit` resting on `supports`, where
    /// it rests and a sphere of radius `r` <= `fit` there is clear.
    fn holds(&self, supports: &[Support; 3], fit: f64, r: f64, faces: &[Face]) -> Option<[f64; 3]> {
        let data = (&self.pos[..], &self.radius[..], faces);
        solve(supports, fit, self.c, data).into_iter().find(|&x| {
            let contacts = supports.map(|s| contact_point(&s, x, fit, data));
            rests(x, &contacts, 1e-12) && self.clear(x, r)
        })
    }
}

/// The lowest point of a lattice of spacing r/2 over the region where a
/// sphere of radius `r` is inside and clear.
fn first_spot(region: &FillRegion3d, r: f64, clear: &dyn Fn([f64; 3]) -> bool) -> Option<[f64; 3]> {
    Lattice::new(region, r).next_clear(clear)
}

/// The points of a lattice of spacing r/2 over the region, r from its
/// sides, lowest row first (in a row, x then z), read from a cursor. A
/// point not clear stays so as spheres are placed, so a fill reads the
/// lattice once however often it comes back to it.
struct Lattice {
    lo: [f64; 3],
    step: f64,
    n: [usize; 3],
    next: usize,
}

impl Lattice {
    fn new(region: &FillRegion3d, r: f64) -> Self {
        let step = 0.5 * r;
        let count = |k: usize| ((region.hi[k] - region.lo[k] - 2.0 * r) / step).floor().max(0.0) as usize + 1;
        Lattice {
            lo: region.lo.map(|x| x + r),
            step,
            n: [count(0), count(1), count(2)],
            next: 0,
        }
    }

    /// The first point from the cursor on where `clear` holds (the cursor
    /// left on it), or None past the last.
    fn next_clear(&mut self, clear: &dyn Fn([f64; 3]) -> bool) -> Option<[f64; 3]> {
        let [nx, ny, nz] = self.n;
        while self.next < nx * ny * nz {
            let (iy, ix, iz) = (self.next / (nx * nz), self.next / nz % nx, self.next % nz);
            let x = [
                self.lo[0] + self.step * ix as f64,
                self.lo[1] + self.step * iy as f64,
                self.lo[2] + self.step * iz as f64,
            ];
            if clear(x) {
                return Some(x);
            }
            self.next += 1;
        }
        None
    }
}

/// `x` lowered while `clear` holds, in steps of `drop`, then to within
/// `tol` of where it stops holding (bisection: what is below may be any
/// shape; the region's box ends every fall).
fn lowered(x: [f64; 3], drop: f64, tol: f64, clear: &dyn Fn([f64; 3]) -> bool) -> [f64; 3] {
    let at = |dy: f64| [x[0], x[1] - dy, x[2]];
    let (mut ok, mut bad) = (0.0, drop);
    while clear(at(bad)) {
        (ok, bad) = (bad, bad + drop);
    }
    while bad - ok > tol {
        let mid = 0.5 * (ok + bad);
        if clear(at(mid)) { ok = mid } else { bad = mid }
    }
    at(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_supports_of_each_kind_give_the_resting_centre() {
        let pos = vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 3f64.sqrt()]];
        let radius = vec![1.0; 3];
        let faces = vec![
            ([0.0, -1.0, 0.0], [0.0, 1.0, 0.0]),
            ([-1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]),
        ];
        // Three touching unit spheres: a fourth rests on top of the tetrahedron.
        let s = [Support::Sphere(0), Support::Sphere(1), Support::Sphere(2)];
        let x = solve(&s, 1.0, 0.0, (&pos, &radius, &faces))[0];
        let want = [1.0, (8.0f64 / 3.0).sqrt(), 3f64.sqrt() / 3.0];
        assert!((0..3).all(|k| (x[k] - want[k]).abs() < 1e-12), "{x:?}");
        // Two spheres on a floor: the third touches both and the floor.
        let floor = Support::Face(0, false);
        let both = solve(
            &[Support::Sphere(0), Support::Sphere(1), floor],
            1.0,
            0.0,
            (&pos, &radius, &faces),
        );
        assert_eq!(both.len(), 2, "{both:?}");
        let x = both[0];
        assert!((x[1] - 0.0).abs() < 1e-12 && (x[0] - 1.0).abs() < 1e-12 && (x[2].abs() - 3f64.sqrt()).abs() < 1e-12);
        // A sphere in the corner of a floor and a wall, touching sphere 0.
        // The wall's face faces away from the grains: turned.
        let wall = Support::Face(1, true);
        let x = solve(&[Support::Sphere(0), floor, wall], 1.0, 0.0, (&pos, &radius, &faces))[0];
        assert!(
            (x[0] - 0.0).abs() < 1e-12 && (x[1] - 0.0).abs() < 1e-12 && (x[2].abs() - 2.0).abs() < 1e-12,
            "{x:?}"
        );
        // Supports too far apart meet nowhere.
        let far = vec![[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [5.0, 0.0, 5.0]];
        assert!(solve(&s, 1.0, 0.0, (&far, &radius, &faces)).is_empty());
    }
}
