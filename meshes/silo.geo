// Flat-bottomed silo over a receiving bin, in metres; silo floor at y = 0.
// Only the 1D wall mesh is used: 2-node line elements, physical curves "wall" and "gate".
//
// Regenerate (gmsh 4.8.4), from this directory:
//   gmsh -1 silo.geo -format msh41 -o silo.msh

lc = 0.05; // characteristic length (m)

// Outer rectangle, x in [-0.1, 0.1], y in [-0.3, 0.4]; the sides are split at
// y = 0 so the floor shares its end points with them.
Point(1) = {-0.1, -0.3, 0, lc};
Point(2) = {0.1, -0.3, 0, lc};
Point(3) = {0.1, 0, 0, lc};
Point(4) = {0.1, 0.4, 0, lc};
Point(5) = {-0.1, 0.4, 0, lc};
Point(6) = {-0.1, 0, 0, lc};
// Outlet lips.
Point(7) = {-0.015, 0, 0, lc};
Point(8) = {0.015, 0, 0, lc};

Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 5};
Line(5) = {5, 6};
Line(6) = {6, 1};

// Floor, either side of the outlet.
Line(7) = {6, 7};
Line(8) = {8, 3};

// Outlet.
Line(9) = {7, 8};

Physical Curve("wall") = {1, 2, 3, 4, 5, 6, 7, 8};
Physical Curve("gate") = {9};

Mesh.SaveAll = 0; // save only elements that belong to a physical group
