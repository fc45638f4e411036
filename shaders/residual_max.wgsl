// Stage residual_max: the convergence measure of a Jacobi iteration, the
// largest speed and the sum of the squared speeds:
// - max_i residual[i] and max_i |v_i|^2, as atomicMax on the bit patterns
//   (non-negative f32 order like their u32 bits): one atomic per workgroup
//   into stats[STAT_RESIDUAL], stats[STAT_SPEED2];
// - sum_i min(|v_i|^2, SPEED2_CAP): each workgroup adds its grains in a fixed
//   tree in workgroup memory, then adds that f32 sum into the 64-bit fixed
//   point stats[STAT_SPEED2_SUM_HI].stats[STAT_SPEED2_SUM_LO] (units of
//   2^-32 m^2/s^2) by integer atomics with a carry. Integer addition does not
//   depend on the order of the workgroups: the sum repeats bit for bit.
// The host clears the four words first.
// CPU twin: cpu::residual_max::residual_max.

var<workgroup> wg_residual: atomic<u32>;
var<workgroup> wg_speed2: atomic<u32>;
var<workgroup> wg_sum: array<f32, WORKGROUP_SIZE>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    if inv.lid == 0u {
        atomicStore(&wg_residual, 0u);
        atomicStore(&wg_speed2, 0u);
    }
    workgroupBarrier();
    let i = flat_index(inv);
    var s2 = 0.0;
    if i < params.n_grains {
        let v = vel[i];
        // max(x, 0.0) maps -0.0 and NaN-free negatives to +0.0 before the bit cast.
        s2 = max(v.x * v.x + v.y * v.y, 0.0);
        atomicMax(&wg_residual, bitcast<u32>(max(residual[i], 0.0)));
        atomicMax(&wg_speed2, bitcast<u32>(s2));
    }
    wg_sum[inv.lid] = min(s2, SPEED2_CAP);
    workgroupBarrier();
    for (var half = WORKGROUP_SIZE / 2u; half > 0u; half = half / 2u) {
        if inv.lid < half {
            wg_sum[inv.lid] = wg_sum[inv.lid] + wg_sum[inv.lid + half];
        }
        workgroupBarrier();
    }
    if inv.lid == 0u {
        atomicMax(&stats[STAT_RESIDUAL], atomicLoad(&wg_residual));
        atomicMax(&stats[STAT_SPEED2], atomicLoad(&wg_speed2));
        let t = wg_sum[0];
        let whole = floor(t);
        let lo = u32((t - whole) * 4294967296.0);
        let old = atomicAdd(&stats[STAT_SPEED2_SUM_LO], lo);
        let carry = select(0u, 1u, old > 0xffffffffu - lo);
        atomicAdd(&stats[STAT_SPEED2_SUM_HI], u32(whole) + carry);
    }
}
