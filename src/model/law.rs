//! The soft-sphere contact law's constants (DESIGN §1b), shared by the CPU
//! stage `cpu::dem::force` and the GPU stage shaders/dem_force.wgsl.

use crate::model::{DemParams, NormalLaw, Phase};

/// The contact law's constants of one step (the GPU's `DemLaw` uniform).
/// Keep in sync with `DemLaw` in shaders/dem_shared.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DemLaw {
    /// Hertz stiffness k_n, N/m^2.5.
    pub kn: f32,
    /// Tangential viscosity k_t, N s/m^2.
    pub kt: f32,
    /// Normal damping of the current phase (gamma_n or gamma_relax), N s/m^2.
    pub gamma: f32,
    /// Coulomb friction coefficient.
    pub mu: f32,
    /// Rolling-resistance coefficient.
    pub mu_roll: f32,
    /// Time step, s (the implicit tangential and rolling terms need it).
    pub dt: f32,
    /// 0: Hertz, F_n = k_n delta^1.5 - gamma v_n; 1: linear spring-dashpot,
    /// F_n = k_n delta - gamma v_n (`kn` is then k_s and `gamma` k_d).
    pub linear: u32,
}

impl DemLaw {
    /// The elastic part of the normal force at overlap `delta` > 0, N/m.
    #[inline]
    pub fn elastic(&self, delta: f32) -> f32 {
        if self.linear != 0 {
            self.kn * delta
        } else {
            self.kn * delta * delta.sqrt()
        }
    }
}

/// The law of `phase` at time step `dt`.
pub fn law(dem: &DemParams, phase: Phase, dt: f32) -> DemLaw {
    DemLaw {
        kn: dem.kn,
        kt: dem.kt,
        gamma: dem.gamma(phase),
        mu: dem.mu,
        mu_roll: dem.mu_roll,
        dt,
        linear: u32::from(dem.law == NormalLaw::Linear),
    }
}
