// Stage residual_max: the convergence measure of a Jacobi iteration and the
// largest speed, max_i residual[i] and max_i |v_i|^2, as atomicMax on the bit
// patterns (non-negative f32 order like their u32 bits): one atomic per
// workgroup into stats[STAT_RESIDUAL], stats[STAT_SPEED2]; and the grains'
// speed histogram, one count per grain in the bin of the binary exponent of
// |v_i|^2 (model::speeds::bin), added per workgroup into
// stats[STAT_SPEED_HIST ..] (all cleared by the host).
// CPU twins: cpu::residual_max::residual_max, model::speeds::histogram.

var<workgroup> wg_residual: atomic<u32>;
var<workgroup> wg_speed2: atomic<u32>;
var<workgroup> wg_hist: array<atomic<u32>, SPEED_BINS>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    if inv.lid == 0u {
        atomicStore(&wg_residual, 0u);
        atomicStore(&wg_speed2, 0u);
    }
    if inv.lid < SPEED_BINS {
        atomicStore(&wg_hist[inv.lid], 0u);
    }
    workgroupBarrier();
    let i = flat_index(inv);
    if i < params.n_grains {
        let v = vec_in(vel[i]);
        let v2 = dot_exact(v, v);
        // max(x, 0.0) maps -0.0 and NaN-free negatives to +0.0 before the bit cast.
        atomicMax(&wg_residual, bitcast<u32>(max(residual[i], 0.0)));
        atomicMax(&wg_speed2, bitcast<u32>(max(v2, 0.0)));
        let exponent = i32((bitcast<u32>(v2) >> 23u) & 0xffu) - 127;
        let bin = u32(clamp(exponent + 1 - SPEED_LOW, 0, i32(SPEED_BINS) - 1));
        atomicAdd(&wg_hist[bin], 1u);
    }
    workgroupBarrier();
    if inv.lid == 0u {
        atomicMax(&stats[STAT_RESIDUAL], atomicLoad(&wg_residual));
        atomicMax(&stats[STAT_SPEED2], atomicLoad(&wg_speed2));
    }
    if inv.lid < SPEED_BINS {
        let count = atomicLoad(&wg_hist[inv.lid]);
        if count > 0u {
            atomicAdd(&stats[STAT_SPEED_HIST + inv.lid], count);
        }
    }
}
