// Stage residual_max: the convergence measure of a Jacobi iteration and the
// largest speed, max_i residual[i] and max_i |v_i|^2, as atomicMax on the bit
// patterns (non-negative f32 order like their u32 bits): one atomic per
// workgroup into stats[STAT_RESIDUAL], stats[STAT_SPEED2] (cleared by the host).
// CPU twin: cpu::residual_max::residual_max.

var<workgroup> wg_residual: atomic<u32>;
var<workgroup> wg_speed2: atomic<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(inv: Invocation) {
    if inv.lid == 0u {
        atomicStore(&wg_residual, 0u);
        atomicStore(&wg_speed2, 0u);
    }
    workgroupBarrier();
    let i = flat_index(inv);
    if i < params.n_grains {
        let v = vel[i];
        // max(x, 0.0) maps -0.0 and NaN-free negatives to +0.0 before the bit cast.
        atomicMax(&wg_residual, bitcast<u32>(max(residual[i], 0.0)));
        atomicMax(&wg_speed2, bitcast<u32>(max(v.x * v.x + v.y * v.y, 0.0)));
    }
    workgroupBarrier();
    if inv.lid == 0u {
        atomicMax(&stats[STAT_RESIDUAL], atomicLoad(&wg_residual));
        atomicMax(&stats[STAT_SPEED2], atomicLoad(&wg_speed2));
    }
}
