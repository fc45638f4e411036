// The DEM contact law's constants (DESIGN §1b), shared by the dem_* stages.
// Keep in sync with model::law::DemLaw (src/model/law.rs), which the CPU twins
// read by the CPU twins in src/cpu/dem; tests/gpu_dem.rs checks sizes and offsets.
struct DemLaw {
    kn: f32,        // Hertz stiffness, N/m^2.5 (N/m^1.5 per unit thickness)
    kt: f32,        // tangential viscosity, N s/m^2
    gamma: f32,     // normal damping of the current phase, N s/m^2
    mu: f32,        // Coulomb friction coefficient
    mu_roll: f32,   // rolling-resistance coefficient
    dt: f32,        // time step, s
    linear: u32,    // 0: Hertz k_n delta^1.5; 1: linear spring k_n delta (kn = k_s, gamma = k_d)
}
