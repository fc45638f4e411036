// Spheres and wall edges of a 3D picture (src/render/spheres.rs).
//   spheres: one quad (6 vertices) per instance, facing the eye through the
//            sphere's centre, wide enough for its outline under the
//            perspective (quad_scale r, stretched); the fragment casts the ray
//            from the eye, keeps where it meets the sphere, writes the true
//            depth of that point and shades it (ambient + Lambert, light in
//            eye coordinates)
//   faces:   the walls' triangles, world coordinates with the face's normal,
//            in the wall colour shaded from either side, translucent
//   walls:   a line list (feature edges), world coordinates, in the wall colour
// Colours arrive as sRGB bytes (unorm); shading is done on linear values and
// written back as sRGB bytes, or as linear values to an sRGB target.

// Keep in sync with SphereUniform (src/render/spheres.rs).
struct View {
    view: mat4x4<f32>,
    proj: mat4x4<f32>,
    light: vec4<f32>,      // unit direction towards the light, eye coordinates
    wall: vec4<f32>,       // wall colour, sRGB 0..1
    ambient: f32,          // the light every point gets, 0..1
    quad_scale: f32,       // quad half side / radius
    srgb_target: u32,      // 1: the target encodes, write linear values
    face_alpha: f32,       // opacity of the walls' faces
}

@group(0) @binding(0) var<uniform> v: View;

fn to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}

fn to_srgb(c: vec3<f32>) -> vec3<f32> {
    let lo = c * 12.92;
    let hi = 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(hi, lo, c <= vec3<f32>(0.0031308));
}

// A linear colour as the target wants it.
fn encode(c: vec3<f32>) -> vec4<f32> {
    if v.srgb_target == 1u {
        return vec4<f32>(c, 1.0);
    }
    return vec4<f32>(to_srgb(clamp(c, vec3<f32>(0.0), vec3<f32>(1.0))), 1.0);
}

struct SphereOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) at: vec3<f32>,                          // the quad's point, eye coordinates
    @location(1) @interpolate(flat) centre: vec3<f32>,   // eye coordinates
    @location(2) @interpolate(flat) radius: f32,
    @location(3) @interpolate(flat) color: vec3<f32>,    // sRGB 0..1
}

@vertex
fn sphere_vs(
    @builtin(vertex_index) k: u32,
    @location(0) centre_radius: vec4<f32>,
    @location(1) color: vec4<f32>,
) -> SphereOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let c = (v.view * vec4<f32>(centre_radius.xyz, 1.0)).xyz;
    let r = centre_radius.w;
    // The outline seen from the eye: a sphere at distance d subtends
    // r / sqrt(d^2 - r^2), and off the axis its image stretches by d / |c.z|
    // (held to 8x, and a sphere around the eye to a quad of 8 r).
    let d = length(c);
    let stretch = min(d / max(-c.z, 1e-6 * d), 8.0);
    let near = inverseSqrt(max(1.0 - (r * r) / max(d * d, 1e-30), 1.0 / 64.0));
    let at = c + vec3<f32>(corners[k] * (v.quad_scale * r * stretch * near), 0.0);
    var out: SphereOut;
    out.clip = v.proj * vec4<f32>(at, 1.0);
    out.at = at;
    out.centre = c;
    out.radius = r;
    out.color = color.rgb;
    return out;
}

struct SphereFragment {
    @location(0) color: vec4<f32>,
    @builtin(frag_depth) depth: f32,
}

@fragment
fn sphere_fs(in: SphereOut) -> SphereFragment {
    // The ray from the eye (the origin) along d meets the sphere where its
    // distance to the centre, |c - (d.c) d|, is below r; q is that
    // perpendicular, computed directly so a small sphere far away keeps its
    // precision.
    let d = normalize(in.at);
    let b = dot(d, in.centre);
    let q = in.centre - b * d;
    let h = in.radius * in.radius - dot(q, q);
    if h < 0.0 || b <= 0.0 {
        discard;
    }
    let hit = (b - sqrt(h)) * d;
    let n = (hit - in.centre) / in.radius;
    let clip = v.proj * vec4<f32>(hit, 1.0);
    let shade = v.ambient + (1.0 - v.ambient) * max(dot(n, v.light.xyz), 0.0);
    var out: SphereFragment;
    out.color = encode(to_linear(in.color) * shade);
    out.depth = clamp(clip.z / clip.w, 0.0, 1.0);
    return out;
}

@vertex
fn wall_vs(@location(0) p: vec3<f32>) -> @builtin(position) vec4<f32> {
    return v.proj * (v.view * vec4<f32>(p, 1.0));
}

@fragment
fn wall_fs() -> @location(0) vec4<f32> {
    return encode(to_linear(v.wall.rgb));
}

struct FaceOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,   // eye coordinates
}

@vertex
fn face_vs(@location(0) p: vec3<f32>, @location(1) n: vec3<f32>) -> FaceOut {
    var out: FaceOut;
    out.clip = v.proj * (v.view * vec4<f32>(p, 1.0));
    out.normal = (v.view * vec4<f32>(n, 0.0)).xyz;
    return out;
}

@fragment
fn face_fs(in: FaceOut) -> @location(0) vec4<f32> {
    let shade = v.ambient + (1.0 - v.ambient) * abs(dot(normalize(in.normal), v.light.xyz));
    let c = encode(to_linear(v.wall.rgb) * shade);
    return vec4<f32>(c.rgb, v.face_alpha);
}
