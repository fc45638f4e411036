//! The window (winit 0.30): `hourglass run --window` and `hourglass view DIR`.
//!
//! ```text
//!   space  pause / resume         right  one step (live) / next frame (replay)
//!   r      restart                left   previous frame (replay)
//!   + / -  steps (frames) per     Home / End  first / last frame (replay)
//!          displayed frame x2 /2
//!   c      next colour mode       s      screenshot PNG (into the result directory)
//!   wheel  zoom at the cursor     drag   pan
//!   f      fit the view again
//!   3D (view of a run with dimension = 3):
//!   drag   orbit (yaw, pitch)     wheel  closer / farther      x  cut-away on / off
//! ```
//! The surface, the renderer and (for the Jacobi GPU path) the simulation
//! share one device, so the grains are drawn from the simulation's buffers.
//! A screenshot renders the current view offscreen through the same
//! renderer code as [`Offscreen`]; `--screenshot-after K` takes one
//! after K frames and closes the window (for tests). A periodic domain
//! (`walls.periodic_x`: the live scene's, or the replayed directory's
//! scene.toml) has its seams drawn, and the fitted view holds the period.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

use super::player::{Live, Live3, Orbiting, Replay, Replay3};
use super::save_png;
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::model::Grid;
use crate::model::Walls;
use crate::model::space::Dim3;
use crate::output::{Summary, read};
use crate::render::renderer::{Frame, Renderer, Source};
use crate::render::spheres::{SphereFrame, SphereMovie, SphereRenderer};
use crate::render::{Camera, ColorMode, Offscreen, Ranges, offscreen, scene_bbox, with_period};
use crate::scene::Setup;

/// Window options shared by `run --window` and `view`.
#[derive(Debug, Clone, Copy, Default)]
pub struct WindowOptions {
    pub quiet: bool,
    /// Take a screenshot after this many frames, then close.
    pub screenshot_after: Option<u64>,
}

enum Content {
    /// Built once the window (and so the device) exists.
    Pending(Option<Box<(Setup, Grid)>>),
    /// A 3D run, built once the window exists.
    Pending3(Option<Box<(Setup<Dim3>, Grid<Dim3>)>>),
    Live(Box<Live>),
    Live3(Box<Live3>),
    Replay(Box<Replay>),
    Replay3(Box<Replay3>),
}

struct Gfx {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    ctx: GpuContext,
    renderer: Renderer,
    /// The spheres' renderer, for a 3D replay.
    spheres: Option<SphereRenderer>,
    /// The walls `renderer` holds: uploaded again when the content's change.
    walls: Walls,
    /// The screenshot renderer, its target and the walls it holds.
    shots: Option<(Renderer, Offscreen, Walls)>,
}

struct App {
    instance: wgpu::Instance,
    content: Content,
    gfx: Option<Gfx>,
    opts: WindowOptions,
    mode: ColorMode,
    camera: Option<Camera>,
    paused: bool,
    /// Steps (live) or frames (replay) per displayed frame.
    speed: u64,
    step_once: bool,
    cursor: [f32; 2],
    drag: Option<[f32; 2]>,
    frames_drawn: u64,
    screenshots: u32,
    last_shot: Option<PathBuf>,
    rate_since: (Instant, u64),
    steps_per_second: f64,
    replay_clock: Instant,
    summary: Option<Summary>,
    error: Option<Error>,
}

fn gpu(e: impl std::fmt::Display) -> Error {
    Error::Gpu(e.to_string())
}

impl App {
    fn new(instance: wgpu::Instance, content: Content, opts: WindowOptions) -> App {
        App {
            instance,
            content,
            gfx: None,
            opts,
            mode: ColorMode::Height,
            camera: None,
            paused: false,
            speed: 8,
            step_once: false,
            cursor: [0.0; 2],
            drag: None,
            frames_drawn: 0,
            screenshots: 0,
            last_shot: None,
            rate_since: (Instant::now(), 0),
            steps_per_second: 0.0,
            replay_clock: Instant::now(),
            summary: None,
            error: None,
        }
    }

    fn open(&mut self, el: &ActiveEventLoop) -> Result<()> {
        let title = match &self.content {
            Content::Replay(_) | Content::Replay3(_) => "hourglass view",
            _ => "hourglass",
        };
        let attrs = Window::default_attributes()
            .with_title(title)
            .with_inner_size(winit::dpi::LogicalSize::new(720.0, 720.0));
        let window = Arc::new(
            el.create_window(attrs)
                .map_err(|e| gpu(format!("cannot open a window: {e}")))?,
        );
        let surface = self
            .instance
            .create_surface(window.clone())
            .map_err(|e| gpu(format!("cannot draw into the window: {e}")))?;
        let adapter = pollster::block_on(self.instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: Some(&surface),
            apply_limit_buckets: false,
        }))
        .map_err(|e| gpu(format!("no adapter can draw into the window: {e}")))?;
        let ctx = GpuContext::from_adapter(&adapter)?;
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .ok_or_else(|| gpu(format!("{}: the window surface is not supported", ctx.adapter_name())))?;
        config.present_mode = wgpu::PresentMode::AutoVsync;
        surface.configure(&ctx.device, &config);
        let mut renderer = Renderer::new(&ctx, config.format);
        if let Content::Pending(pending) = &mut self.content
            && let Some(b) = pending.take()
        {
            let (setup, grid) = *b;
            self.content = Content::Live(Box::new(Live::start(setup, grid, &ctx, self.opts.quiet)?));
        }
        if let Content::Pending3(pending) = &mut self.content
            && let Some(b) = pending.take()
        {
            let (setup, grid) = *b;
            let size = [config.width, config.height];
            self.content = Content::Live3(Box::new(Live3::start(setup, grid, &ctx, self.opts.quiet, size)?));
        }
        renderer.set_period(&ctx, self.period());
        let polygons = match &self.content {
            Content::Replay3(r) => Some(&r.walls),
            Content::Live3(l) => Some(&l.polygons),
            _ => None,
        };
        let spheres = polygons.map(|p| {
            let mut s = SphereRenderer::new(&ctx, config.format);
            s.set_walls(p);
            s
        });
        self.gfx = Some(Gfx {
            window,
            surface,
            config,
            ctx,
            renderer,
            spheres,
            walls: Walls::default(),
            shots: None,
        });
        self.sync_walls();
        Ok(())
    }

    /// Upload the content's walls to the window's renderer when they are
    /// not the ones it holds (a replayed frame's walls, a live run's moved
    /// walls: [`Live::set_walls`]).
    fn sync_walls(&mut self) {
        let walls = match &self.content {
            Content::Live(l) => &l.walls,
            Content::Replay(r) => &r.walls,
            _ => return,
        };
        if let Some(g) = &mut self.gfx
            && g.walls != *walls
        {
            g.renderer.set_walls(&g.ctx, walls);
            g.walls.clone_from(walls);
        }
    }

    /// The period [xmin, xmax] along x of the content, m (None: not periodic).
    fn period(&self) -> Option<[f32; 2]> {
        match &self.content {
            Content::Live(l) => l.setup.periodic_x(),
            Content::Replay(r) => r.period,
            _ => None,
        }
    }

    fn ranges(&self) -> Ranges {
        match &self.content {
            Content::Live(l) => l.ranges,
            Content::Replay(r) => r.ranges,
            Content::Replay3(r) => r.view.frame.ranges,
            Content::Live3(l) => l.view.frame.ranges,
            Content::Pending(_) | Content::Pending3(_) => {
                Ranges::for_scene(&Default::default(), unreachable_walls(), [0.0, -9.81], 1e-3)
            }
        }
    }

    fn camera(&mut self, w: u32, h: u32) -> Camera {
        if let Some(c) = self.camera {
            return c;
        }
        let bbox = match &self.content {
            Content::Live(l) if l.setup.moves_walls() => l.setup.walls_box,
            Content::Live(l) => scene_bbox(&l.setup.grains, &l.walls),
            Content::Replay(r) => r.walls_box.unwrap_or_else(|| scene_bbox(&r.grains, &r.walls)),
            _ => [-1.0, -1.0, 1.0, 1.0],
        };
        let c = Camera::fit(with_period(bbox, self.period()), w, h);
        self.camera = Some(c);
        c
    }

    /// Advance the content by this frame's share.
    fn tick(&mut self) -> Result<()> {
        let go = !self.paused || std::mem::take(&mut self.step_once);
        match &mut self.content {
            Content::Live(l) => {
                if go && !l.done() {
                    let n = if self.paused { 1 } else { self.speed };
                    l.advance(n)?;
                }
            }
            Content::Live3(l) => {
                if go && !l.live.done() {
                    let n = if self.paused { 1 } else { self.speed };
                    l.live.advance(n)?;
                }
            }
            Content::Replay(r) => {
                // Playback at 30 frames per second times `speed`.
                let due = self.replay_clock.elapsed().as_secs_f64() >= 1.0 / 30.0;
                if !self.paused && due && r.index + 1 < r.frames.len() {
                    self.replay_clock = Instant::now();
                    let next = r.index + self.speed.div_ceil(8) as usize;
                    r.seek(next)?;
                }
            }
            Content::Replay3(r) => {
                let due = self.replay_clock.elapsed().as_secs_f64() >= 1.0 / 30.0;
                if !self.paused && due && r.index + 1 < r.frames.len() {
                    self.replay_clock = Instant::now();
                    let next = r.index + self.speed.div_ceil(8) as usize;
                    r.seek(next)?;
                }
            }
            Content::Pending(_) | Content::Pending3(_) => {}
        }
        Ok(())
    }

    fn title(&mut self) -> String {
        let state = if self.paused { " [paused]" } else { "" };
        match &self.content {
            Content::Live(l) => {
                let (p, done, n) = (l.progress(), l.done(), l.setup.grains.len());
                self.live_title(p, done, n, state)
            }
            Content::Live3(l) => {
                let (p, done, n) = (l.live.progress(), l.live.done(), l.live.setup.grains.len());
                let cut = if l.view.frame.cut { " - cut away" } else { "" };
                self.live_title(p, done, n, state) + cut
            }
            Content::Replay(r) => {
                let at = (r.index, r.frames.len(), r.time(), r.passed());
                self.replay_title(&r.dir, at, state)
            }
            Content::Replay3(r) => {
                let at = (r.index, r.frames.len(), r.time(), r.passed());
                let cut = if r.view.frame.cut { " - cut away" } else { "" };
                self.replay_title(&r.dir, at, state) + cut
            }
            Content::Pending(_) | Content::Pending3(_) => "hourglass".to_string(),
        }
    }

    /// The title of a replay of `dir` at frame `at` = (index from 0, frames,
    /// time in s, grains passed).
    fn replay_title(&self, dir: &std::path::Path, at: (usize, usize, f64, Option<u64>), state: &str) -> String {
        let (index, frames, time, passed) = at;
        format!(
            "hourglass view {} - frame {}/{} - t = {:.3} s - passed {} - {}{}",
            dir.display(),
            index + 1,
            frames,
            time,
            passed.map_or("?".to_string(), |p| p.to_string()),
            self.mode.name(),
            state
        )
    }

    /// The title of a live run at progress `p` (`done`: it has ended; `n`
    /// grains at the start), the steps per second measured since the last.
    fn live_title(&mut self, p: Option<crate::sim::Progress>, done: bool, n: usize, state: &str) -> String {
        let steps = p.map_or(0, |p| p.steps);
        let (t0, s0) = self.rate_since;
        let dt = t0.elapsed().as_secs_f64();
        if dt >= 0.5 {
            self.steps_per_second = steps.saturating_sub(s0) as f64 / dt;
            self.rate_since = (Instant::now(), steps);
        }
        let done = if done { " [done]" } else { "" };
        format!(
            "hourglass - t = {:.3} s - passed {}/{} - {:.0} steps/s - {} steps/frame - {}{}{}",
            p.map_or(0.0, |p| p.time),
            p.map_or(0, |p| p.totals.passed),
            n,
            self.steps_per_second,
            self.speed,
            self.mode.name(),
            state,
            done
        )
    }

    fn frame(&mut self, w: u32, h: u32) -> Frame {
        Frame {
            camera: self.camera(w, h),
            mode: self.mode,
            ranges: self.ranges(),
            width: w,
            height: h,
            legend: true,
        }
    }

    fn redraw(&mut self) -> Result<()> {
        self.tick()?;
        self.sync_walls();
        let title = self.title();
        let Some((w, h)) = self.gfx.as_ref().map(|g| (g.config.width, g.config.height)) else {
            return Ok(());
        };
        let frame = self.frame(w, h);
        let Some(g) = self.gfx.as_mut() else { return Ok(()) };
        g.window.set_title(&title);
        let texture = match g.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                g.surface.configure(&g.ctx.device, &g.config);
                return Ok(());
            }
            _ => return Ok(()),
        };
        let view = texture.texture.create_view(&wgpu::TextureViewDescriptor::default());
        let source = match &mut self.content {
            Content::Live(l) => l.backend.view()?,
            Content::Replay(r) => Source::Host {
                grains: &r.grains,
                contacts: None,
            },
            Content::Replay3(_) | Content::Live3(_) => {
                let mode = self.mode;
                if let (Some((grains, view3)), Some(spheres)) = (self.content.spheres()?, g.spheres.as_mut()) {
                    let frame = SphereFrame { mode, ..view3.frame };
                    spheres.draw(&g.ctx, grains, &frame, &view, [w, h]);
                }
                g.window.pre_present_notify();
                g.ctx.queue.present(texture);
                self.frames_drawn += 1;
                return self.screenshot_when_due();
            }
            Content::Pending(_) | Content::Pending3(_) => return Ok(()),
        };
        g.renderer.draw(&g.ctx, &source, &frame, &view);
        g.window.pre_present_notify();
        g.ctx.queue.present(texture);
        self.frames_drawn += 1;
        self.screenshot_when_due()
    }

    /// The screenshot `--screenshot-after K` asks for, once K frames are drawn.
    fn screenshot_when_due(&mut self) -> Result<()> {
        if let Some(k) = self.opts.screenshot_after
            && self.frames_drawn >= k
            && self.last_shot.is_none()
        {
            self.screenshot()?;
        }
        Ok(())
    }

    /// The `s` key: the current view as a PNG in the result directory.
    fn screenshot(&mut self) -> Result<PathBuf> {
        let Some((w, h)) = self.gfx.as_ref().map(|g| (g.config.width, g.config.height)) else {
            return Err(gpu("no window"));
        };
        let frame = self.frame(w, h);
        let dir = match &self.content {
            Content::Live(l) => l.out_dir(),
            Content::Replay(r) => r.dir.clone(),
            Content::Replay3(r) => r.dir.clone(),
            Content::Live3(l) => l.live.out_dir(),
            Content::Pending(_) | Content::Pending3(_) => PathBuf::from("."),
        };
        let path = crate::output::Outputs::open(&dir)?.file(&format!("screenshot_{:03}.png", self.screenshots))?;
        let polygons = match &self.content {
            Content::Replay3(r) => Some(r.walls.clone()),
            Content::Live3(l) => Some(l.polygons.clone()),
            _ => None,
        };
        if let Some(polygons) = polygons {
            let ctx = self.gfx.as_ref().ok_or_else(|| gpu("no window"))?.ctx.clone();
            let mode = self.mode;
            let Some((grains, view3)) = self.content.spheres()? else {
                return Err(gpu("nothing to draw"));
            };
            let frame = SphereFrame { mode, ..view3.frame };
            let img = SphereMovie::new(&ctx, &polygons, frame, [w, h]).draw(grains)?;
            return self.saved(img, path);
        }
        let period = self.period();
        let g = self.gfx.as_mut().ok_or_else(|| gpu("no window"))?;
        let walls = match &self.content {
            Content::Live(l) => l.walls.clone(),
            Content::Replay(r) => r.walls.clone(),
            _ => Walls::default(),
        };
        let stale = g.shots.as_ref().is_none_or(|(_, o, _)| o.size() != (w, h));
        if stale {
            let mut r = Renderer::new(&g.ctx, offscreen::FORMAT);
            r.set_walls(&g.ctx, &walls);
            r.set_period(&g.ctx, period);
            g.shots = Some((r, Offscreen::new(&g.ctx, w, h), walls));
        } else if let Some((r, _, held)) = g.shots.as_mut()
            && *held != walls
        {
            r.set_walls(&g.ctx, &walls);
            *held = walls;
        }
        let Some((renderer, target, _)) = g.shots.as_mut() else {
            return Err(gpu("no offscreen target"));
        };
        let source = match &mut self.content {
            Content::Live(l) => l.backend.view()?,
            Content::Replay(r) => Source::Host {
                grains: &r.grains,
                contacts: None,
            },
            _ => return Err(gpu("nothing to draw")),
        };
        let img = target.render(&g.ctx, renderer, &source, &frame)?;
        self.saved(img, path)
    }

    /// `img` saved as the screenshot `path`.
    fn saved(&mut self, img: image::RgbaImage, path: PathBuf) -> Result<PathBuf> {
        save_png(&img, &path)?;
        self.screenshots += 1;
        if !self.opts.quiet {
            eprintln!("screenshot: {}", path.display());
        }
        self.last_shot = Some(path.clone());
        Ok(path)
    }

    fn key(&mut self, key: &Key) -> Result<()> {
        let (w, h) = self.gfx.as_ref().map_or((1, 1), |g| (g.config.width, g.config.height));
        match key {
            Key::Named(NamedKey::Space) => self.paused = !self.paused,
            Key::Named(NamedKey::ArrowRight) => match &mut self.content {
                Content::Replay(r) => {
                    self.paused = true;
                    r.seek(r.index + 1)?;
                }
                Content::Replay3(r) => {
                    self.paused = true;
                    r.seek(r.index + 1)?;
                }
                _ => {
                    self.paused = true;
                    self.step_once = true;
                }
            },
            Key::Named(NamedKey::ArrowLeft) => match &mut self.content {
                Content::Replay(r) => {
                    self.paused = true;
                    r.seek(r.index.saturating_sub(1))?;
                }
                Content::Replay3(r) => {
                    self.paused = true;
                    r.seek(r.index.saturating_sub(1))?;
                }
                _ => {}
            },
            Key::Named(NamedKey::Home) => match &mut self.content {
                Content::Replay(r) => r.seek(0)?,
                Content::Replay3(r) => r.seek(0)?,
                _ => {}
            },
            Key::Named(NamedKey::End) => match &mut self.content {
                Content::Replay(r) => r.seek(usize::MAX)?,
                Content::Replay3(r) => r.seek(usize::MAX)?,
                _ => {}
            },
            Key::Character(s) => match s.as_str() {
                "r" | "R" => match &mut self.content {
                    Content::Live(l) => {
                        l.restart()?;
                        self.rate_since = (Instant::now(), 0);
                    }
                    Content::Replay(r) => r.seek(0)?,
                    Content::Replay3(r) => r.seek(0)?,
                    Content::Live3(l) => {
                        l.live.restart()?;
                        self.rate_since = (Instant::now(), 0);
                    }
                    Content::Pending(_) | Content::Pending3(_) => {}
                },
                "+" | "=" => self.speed = (self.speed * 2).min(1 << 16),
                "-" | "_" => self.speed = (self.speed / 2).max(1),
                "c" | "C" => {
                    let contacts = match &mut self.content {
                        Content::Live(l) => l.has_contacts(),
                        _ => false,
                    };
                    self.mode = self.mode.next(contacts);
                }
                "s" | "S" => {
                    self.screenshot()?;
                }
                "f" | "F" => {
                    self.camera = None;
                    self.camera(w, h);
                    if let Some(o) = self.content.orbiting() {
                        o.frame.orbit = o.fitted;
                    }
                }
                "x" | "X" => {
                    if let Some(o) = self.content.orbiting() {
                        o.frame.cut = !o.frame.cut;
                    }
                }
                _ => {}
            },
            _ => {}
        }
        Ok(())
    }

    fn handle(&mut self, el: &ActiveEventLoop, event: WindowEvent) -> Result<()> {
        let (w, h) = self.gfx.as_ref().map_or((1, 1), |g| (g.config.width, g.config.height));
        match event {
            WindowEvent::CloseRequested => el.exit(),
            WindowEvent::Resized(size) => {
                if let Some(g) = &mut self.gfx
                    && size.width > 0
                    && size.height > 0
                {
                    g.config.width = size.width;
                    g.config.height = size.height;
                    g.surface.configure(&g.ctx.device, &g.config);
                }
            }
            WindowEvent::RedrawRequested => {
                self.redraw()?;
                if self.opts.screenshot_after.is_some() && self.last_shot.is_some() {
                    el.exit();
                }
            }
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                self.key(&event.logical_key)?;
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                if let Some(o) = self.content.orbiting() {
                    o.zoom_by(lines);
                    return Ok(());
                }
                let cursor = self.cursor;
                let mut cam = self.camera(w, h);
                cam.zoom_at(1.15f32.powf(lines), cursor, w, h);
                self.camera = Some(cam);
            }
            WindowEvent::CursorMoved { position, .. } => {
                let p = [position.x as f32, position.y as f32];
                if let Some(last) = self.drag {
                    if let Some(o) = self.content.orbiting() {
                        o.orbit_by(p[0] - last[0], p[1] - last[1]);
                    } else {
                        let mut cam = self.camera(w, h);
                        cam.pan_pixels([p[0] - last[0], p[1] - last[1]], w, h);
                        self.camera = Some(cam);
                    }
                    self.drag = Some(p);
                }
                self.cursor = p;
            }
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => {
                self.drag = (state == ElementState::Pressed).then_some(self.cursor);
            }
            _ => {}
        }
        Ok(())
    }
}

impl Content {
    /// The view of a 3D content.
    fn orbiting(&mut self) -> Option<&mut Orbiting> {
        match self {
            Content::Replay3(r) => Some(&mut r.view),
            Content::Live3(l) => Some(&mut l.view),
            _ => None,
        }
    }

    /// The spheres a 3D content shows now, and its view.
    fn spheres(&mut self) -> Result<Option<(&crate::model::Grains<Dim3>, Orbiting)>> {
        Ok(match self {
            Content::Replay3(r) => Some((&r.grains, r.view)),
            Content::Live3(l) => {
                let view = l.view;
                Some((l.live.backend.grains()?, view))
            }
            _ => None,
        })
    }
}

fn unreachable_walls() -> &'static Walls {
    static EMPTY: std::sync::OnceLock<Walls> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Walls::default)
}

impl ApplicationHandler for App {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.gfx.is_some() || self.error.is_some() {
            return;
        }
        if let Err(e) = self.open(el) {
            self.error = Some(e);
            el.exit();
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.handle(el, event) {
            self.error = Some(e);
            el.exit();
        }
    }

    fn about_to_wait(&mut self, _el: &ActiveEventLoop) {
        if let Some(g) = &self.gfx {
            g.window.request_redraw();
        }
    }
}

fn event_loop() -> Result<(EventLoop<()>, wgpu::Instance)> {
    let el = EventLoop::new().map_err(|e| gpu(format!("cannot open a window (no display?): {e}")))?;
    el.set_control_flow(ControlFlow::Poll);
    let display = el.owned_display_handle();
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(
        display,
    )));
    Ok((el, instance))
}

fn drive(el: EventLoop<()>, app: &mut App) -> Result<()> {
    el.run_app(app).map_err(|e| gpu(format!("window event loop: {e}")))?;
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    Ok(())
}

/// `hourglass run --window`: run `setup` live; closing the window ends the
/// run with its result directory complete (summary.json written).
pub fn run_live(setup: Setup, grid: Grid, opts: WindowOptions) -> Result<Summary> {
    live(Content::Pending(Some(Box::new((setup, grid)))), opts)
}

/// Run the pending `content` live until the window closes.
fn live(content: Content, opts: WindowOptions) -> Result<Summary> {
    let (el, instance) = event_loop()?;
    let mut app = App::new(instance, content, opts);
    let driven = drive(el, &mut app);
    let finished = match &mut app.content {
        Content::Live(l) => l.finish(),
        Content::Live3(l) => l.live.finish(),
        _ => Ok(None),
    };
    app.summary = finished?;
    driven?;
    app.summary
        .take()
        .ok_or_else(|| gpu("the window closed before the run started"))
}

/// `hourglass run --window` of a 3D scene: run `setup` live on the CPU,
/// drawn as spheres through an orbit camera; closing the window ends the
/// run with its result directory complete.
pub fn run_live3(setup: Setup<Dim3>, grid: Grid<Dim3>, opts: WindowOptions) -> Result<Summary> {
    live(Content::Pending3(Some(Box::new((setup, grid)))), opts)
}

/// `hourglass view DIR`: replay a result directory (a 3D run's as spheres
/// through an orbit camera).
pub fn view(dir: &std::path::Path, opts: WindowOptions) -> Result<Option<PathBuf>> {
    let content = if read::dimension(dir)? == 3 {
        // The window opens at 720 x 720 logical px: the camera is fitted for a square.
        Content::Replay3(Box::new(Replay3::open(dir, 720, 720)?))
    } else {
        Content::Replay(Box::new(Replay::open(dir)?))
    };
    let (el, instance) = event_loop()?;
    let mut app = App::new(instance, content, opts);
    drive(el, &mut app)?;
    Ok(app.last_shot)
}
