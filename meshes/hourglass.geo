// Hourglass container for hourglass (2D granular flow), in metres; neck at y = 0.
// Only the 1D wall mesh is used: 2-node line elements, physical curves "wall" and "gate".
//
// Regenerate (gmsh 4.8.4), from this directory:
//   gmsh -1 hourglass.geo -format msh41 -o hourglass.msh
//   gmsh -1 hourglass.geo -format msh41 -bin -o hourglass_binary.msh
//   gmsh -1 hourglass.geo -format msh22 -o hourglass_v2.msh

lc = 0.05; // characteristic length (m): long walls split into several elements

// Outline, a closed loop starting at the left lip of the neck.
Point(1) = {-0.012, 0, 0, lc};
Point(2) = {-0.15, 0.170416, 0, lc};
Point(3) = {-0.15, 0.40, 0, lc};
Point(4) = {0.15, 0.40, 0, lc};
Point(5) = {0.15, 0.170416, 0, lc};
Point(6) = {0.012, 0, 0, lc};
Point(7) = {0.15, -0.170416, 0, lc};
Point(8) = {0.15, -0.40, 0, lc};
Point(9) = {-0.15, -0.40, 0, lc};
Point(10) = {-0.15, -0.170416, 0, lc};

Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 5};
Line(5) = {5, 6};
Line(6) = {6, 7};
Line(7) = {7, 8};
Line(8) = {8, 9};
Line(9) = {9, 10};
Line(10) = {10, 1};

// The gate closes the neck until the run opens it.
Line(11) = {1, 6};

Physical Curve("wall") = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
Physical Curve("gate") = {11};

Mesh.SaveAll = 0; // save only elements that belong to a physical group
