// The DEM contact law's constants (docs/dem.md), shared by the dem_* stages.
// Keep in sync with model::law::DemLaw (src/model/law.rs), read by the CPU
// twins in src/cpu/dem; tests/gpu_dem.rs checks sizes and offsets.
struct DemLaw {
    kn: f32,        // normal stiffness: Hertz k_n, N/m^2.5 (N/m^1.5 per unit thickness), or linear k_s
    kt: f32,        // tangential coefficient: viscosity k_t, N s/m^2, or Mindlin's k_t / sqrt(delta), N/m^2.5
    gamma: f32,     // normal damping of the current phase, N s/m^2
    mu: f32,        // Coulomb friction coefficient
    mu_roll: f32,   // rolling-resistance coefficient
    dt: f32,        // time step, s
    kind: u32,      // the law: its index in model::law::LAWS (0 Hertz, 1 linear, 2 Hertz-Mindlin)
}
