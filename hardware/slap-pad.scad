// Slap pad for the garlic-slapping game: players hit it as hard and fast as they can, so it is
// a low, wide, heavy cone that does not walk across the table or tip over, with a lamp, a
// strained-relieved cable to the buzzer box (button, lamp, ground) and room for the wiring.
// Two variants:
//   "arcade"      a holder for a 100 mm dome "massive arcade button" (the dome rests on the top
//                 plate; only its threaded barrel goes through the plate)
//   "microswitch" a flat printed pad on four spring-loaded guide screws that presses a standard
//                 microswitch; the pad lands on hard stops, never on the switch
// All sizes are in millimetres.
//
// Print:  openscad -o pad-base.stl -D 'part="base"' slap-pad.scad  (and part="top")
// "both" lays out the base and the top (upside down, as it prints) side by side; "assembled"
// shows the pad as it sits on the table, with the button or switch as see-through ghosts.

/* [What to print] */
variant = "arcade";      // "arcade" | "microswitch"
part = "both";           // "both" | "base" | "top" | "assembled"

/* [Base] */
base_d = 180;            // footprint on the table: wide, so a slap on the edge cannot tip it
top_d = 130;             // diameter at the top: the cone's slope sheds sideways blows and prints
                         // without supports (the wall leans in well under 45 degrees)
wall = 3;                // 7-8 perimeters: the shell takes every slap
floor_t = 4;             // a thick floor is cheap weight, low down
foot_d = 13;             // recesses for 12.7 mm (1/2") self-adhesive rubber bumpers
foot_depth = 1.5;        // bumpers are about 3.5 mm tall: most of them still stands proud
feet = 4;                // near the rim, so a slap on the edge lands over a foot
ballast_w = 22;          // a ring-shaped trough around the inside of the wall, for steel shot or
ballast_h = 12;          // sand sealed in with hot glue or epoxy: weight stops the pad walking
post_d = 9;              // screw posts that hold the top (M3 self-tapping, 2.5 mm pilot)
screw_pilot_d = 2.5;
screw_d = 3.4;
screw_head_d = 6.5;      // M3 flat-head countersink in the top
clearance = 0.4;         // fit between the top's lip and the base

/* [Cable] */
cable_d = 5;             // a round 3-core cable (button, lamp, ground), e.g. 3 x 0.25 mm2
cable_clearance = 0.8;   // the exit hole is this much bigger than the cable
zip_tie_w = 4;           // tunnel for a zip tie round the cable: a pull lands on the anchor,
zip_tie_t = 2;           // not on the solder joints

/* [Arcade button] */
// The common 100 mm "massive arcade button" (Adafruit 1185/1187/1188 and clones): an M24
// threaded barrel held by a big nut, a dome about 98.5 mm across. Its maker asks for a 26 mm
// hole and a panel up to 12.7 mm thick. A few clones use a wider barrel: measure yours.
button_hole_d = 26;
dome_d = 100;
dome_h = 30;             // height of the dome above the plate (only for the preview ghost)
button_depth = 50;       // barrel, nut and microswitch below the plate (assumed: measure yours)
terminal_room = 15;      // below the microswitch: insulated spade connectors and the bend of the
                         // button and lamp wires
panel_t = 5;             // top plate: stiff under a slap, far below the button's 12.7 mm limit
button_max_panel = 12.7;

/* [Microswitch pad] */
// A standard-size microswitch with a pin plunger (V-type, e.g. Omron V-15-1A5 and clones:
// 27.8 x 10.3 x 15.9 mm, two 3.1 mm holes 22.2 mm apart). A subminiature SS-5 type fits too:
// 20 x 6.4 x 10.2 mm, holes 2.35 mm, 9.5 mm apart. Travel figures are from typical datasheets;
// check your switch's and set them here, the design keeps a slap inside its overtravel. A lever
// (V-3 "hinge lever") switch works too: give the lever tip's free height and travel instead.
switch_size = [27.8, 10.3, 15.9];    // length, thickness, height (plunger excluded)
switch_hole_pitch = 22.2;
switch_hole_d = 3.1;
switch_hole_z = 5.1;     // hole centres above the body's terminal edge
switch_fp = 15.9;        // free position: plunger top above the hole centres
switch_pt = 1.0;         // pretravel: plunger travel until the switch operates
switch_ot = 1.0;         // overtravel the switch survives beyond that
switch_terminal_room = 12;   // below the body: solder tags and wires
rest_gap = 0.5;          // plunger-post tip above the plunger at rest: no preload, no false press
pad_t = 6;               // the pad plate
spring_od = 7;           // compression springs round the guide screws (or foam rings)
spring_pocket = 3;       // pocket depth in the posts and in the pad that keeps the springs put
plunger_post_d = 8;      // wide enough to find the plunger with some slop
lamp_hole_d = 8;         // a 5 mm LED in a panel bezel, in the wall, facing the player

/* [Detail] */
$fn = 64;
eps = 0.01;

// ---------------------------------------------------------------------------------------------

arcade = variant == "arcade";

// microswitch geometry, from the floor up: the switch stands on its terminal edge, screwed to
// a bracket, its plunger under the middle of the pad
sw_hole_z = floor_t + switch_terminal_room + switch_hole_z;
sw_fp_z = sw_hole_z + switch_fp;
// travel to the hard stop: close the rest gap, operate, then half the overtravel in reserve
travel = rest_gap + switch_pt + switch_ot / 2;
press_depth = travel - rest_gap;

base_h = arcade ? floor_t + button_depth + terminal_room : sw_fp_z + 2;
slope = (base_d - top_d) / 2 / base_h;             // horizontal run per mm of height
wall_h = wall * sqrt(1 + slope * slope);           // the sloped wall's horizontal thickness
function r_out(z) = base_d / 2 - slope * z;
function r_in(z) = r_out(z) - wall_h;

post_r = r_in(base_h) - post_d / 2 - 1;
post_angles = [45, 135, 225, 315];
posts = [for (a = post_angles) [post_r * cos(a), post_r * sin(a)]];

cable_angle = 180;       // the cable leaves at the back, away from the player
cable_z = floor_t + ballast_h + 2 + cable_d / 2;
cable_hole_d = cable_d + cable_clearance;
anchor_r = r_in(floor_t) - ballast_w - 14;

ballast_r = [r_in(floor_t) - ballast_w, r_in(floor_t + ballast_h)];
// volume in cm3 between the trough wall and the cone wall (a frustum ring)
ballast_cm3 = PI * ballast_h / 3 * (pow(r_in(floor_t), 2) + r_in(floor_t) * r_in(floor_t + ballast_h)
              + pow(r_in(floor_t + ballast_h), 2) - 3 * pow(ballast_r[0], 2)) / 1000;

top_t = arcade ? panel_t : pad_t;
top_rest_z = arcade ? base_h : base_h + travel;     // underside of the top plate, at rest
total_h = top_rest_z + top_t + (arcade ? dome_h : 0);
plunger_post_len = top_rest_z - (sw_fp_z + rest_gap);
guide_screw_len = pad_t - 3.5 + travel + 12;        // head in a 3.5 mm counterbore, 12 mm in the post

assert(variant == "arcade" || variant == "microswitch", "variant must be arcade or microswitch");
assert(part == "both" || part == "base" || part == "top" || part == "assembled", "bad part");
assert(panel_t <= button_max_panel, "the button's nut cannot reach through a plate this thick");
assert(slope < 1, "the wall leans more than 45 degrees: it would need supports");

echo("FIG", "variant", variant);
echo("FIG", "footprint_d", base_d);
echo("FIG", "top_d", top_d);
echo("FIG", "base_h", base_h);
echo("FIG", "total_h", total_h);
echo("FIG", "wall_slope_deg", atan(slope));
echo("FIG", "feet", feet);
echo("FIG", "foot", [foot_d, foot_depth]);
echo("FIG", "ballast_cm3", ballast_cm3);
echo("FIG", "cable", [cable_d, cable_hole_d, cable_z]);
echo("FIG", "posts", posts);
echo("FIG", "layout", layout_size());
if (arcade) {
    echo("FIG", "button_hole_d", button_hole_d);
    echo("FIG", "dome_d", dome_d);
    echo("FIG", "panel_t", panel_t);
    echo("FIG", "button_room", [base_h - floor_t, button_depth, terminal_room]);
} else {
    echo("FIG", "switch", [switch_hole_pitch, switch_hole_d, switch_pt, switch_ot]);
    echo("FIG", "travel", travel);
    echo("FIG", "press_depth", press_depth);
    echo("FIG", "plunger_post", [plunger_post_len, plunger_post_d]);
    echo("FIG", "plunger_xy", [0, 0]);
    echo("FIG", "guide_screw_len", guide_screw_len);
    echo("FIG", "switch_bottom_room", sw_hole_z - switch_hole_z - floor_t);
}

// ---------------------------------------------------------------------------------------------

module cone(h, r1, r2) { cylinder(h = h, r1 = r1, r2 = r2); }

module bracket() {
    // a wall the switch is screwed to, its face in the plane y = -switch thickness / 2
    bt = 5;
    translate([-(switch_size[0] + 8) / 2, -switch_size[1] / 2 - bt, floor_t - eps])
        cube([switch_size[0] + 8, bt, sw_hole_z - floor_t + 6]);
}

module base() {
    difference() {
        union() {
            difference() {
                cone(base_h, r_out(0), r_out(base_h));
                translate([0, 0, floor_t]) cone(base_h - floor_t + eps, r_in(floor_t), r_in(base_h + eps));
            }
            // the ballast trough's inner wall
            translate([0, 0, floor_t - eps]) difference() {
                cylinder(r = ballast_r[0] + 2, h = ballast_h);
                translate([0, 0, -1]) cylinder(r = ballast_r[0], h = ballast_h + 2);
            }
            for (p = posts) translate([p[0], p[1], 0]) cylinder(d = post_d, h = base_h);
            // zip-tie anchor: a bridge the tie threads under
            rotate([0, 0, cable_angle]) translate([anchor_r - 5, -7, floor_t - eps]) cube([10, 14, zip_tie_t + 3]);
            if (!arcade) bracket();
        }
        for (p = posts) translate([p[0], p[1], floor_t + 2]) cylinder(d = screw_pilot_d, h = base_h, $fn = 16);
        if (!arcade) for (p = posts) translate([p[0], p[1], base_h - spring_pocket])
            cylinder(d = spring_od + 0.6, h = spring_pocket + eps, $fn = 32);
        rotate([0, 0, cable_angle]) {
            translate([anchor_r - 5 - 1, -zip_tie_w / 2, floor_t - eps]) cube([12, zip_tie_w, zip_tie_t]);
            // the exit, its outside edge flared so a pull at an angle does not cut the cable
            translate([r_out(cable_z) - 2 * wall_h - 1, 0, cable_z]) rotate([0, 90, 0]) {
                cylinder(d = cable_hole_d, h = 3 * wall_h + 2, $fn = 32);
                translate([0, 0, wall_h + 1 + 0.5]) cylinder(d1 = cable_hole_d, d2 = cable_hole_d + 4, h = wall_h + 1, $fn = 32);
            }
        }
        if (!arcade) {
            // lamp in the wall facing the player, opposite the cable
            translate([r_out(cable_z + 12) - 2 * wall_h, 0, cable_z + 12]) rotate([0, 90, 0])
                cylinder(d = lamp_hole_d, h = 3 * wall_h, $fn = 32);
            for (s = [-1, 1]) translate([s * switch_hole_pitch / 2, 0, sw_hole_z]) rotate([90, 0, 0])
                cylinder(d = screw_pilot_d, h = switch_size[1] / 2 + 6, $fn = 16);
        }
        for (i = [0 : feet - 1]) rotate([0, 0, 360 / feet * i + 180 / feet])
            translate([base_d / 2 - foot_d / 2 - 6, 0, -eps]) cylinder(d = foot_d, h = foot_depth + eps, $fn = 32);
    }
}

// The top in its assembled position, its underside at z = 0.
module top_plate() {
    lip_r = r_in(base_h) - clearance;
    difference() {
        union() {
            cylinder(d = top_d, h = top_t);
            if (arcade) translate([0, 0, -3]) difference() {
                // a lip inside the base's rim keeps the plate centred under sideways slaps
                cylinder(r = lip_r, h = 3 + eps);
                translate([0, 0, -1]) cylinder(r = lip_r - 2.4, h = 5);
                for (p = posts) translate([p[0], p[1], -1]) cylinder(d = post_d + 2 * clearance + 4.8, h = 5, $fn = 32);
            }
            else translate([0, 0, -plunger_post_len]) cylinder(d = plunger_post_d, h = plunger_post_len + eps, $fn = 32);
        }
        if (arcade) {
            translate([0, 0, -5]) cylinder(d = button_hole_d, h = top_t + 10);
            for (p = posts) translate([p[0], p[1], -1]) {
                cylinder(d = screw_d, h = top_t + 2, $fn = 16);
                translate([0, 0, 1 + top_t - (screw_head_d - screw_d) / 2 + eps])
                    cylinder(d1 = screw_d, d2 = screw_head_d, h = (screw_head_d - screw_d) / 2, $fn = 24);
            }
        } else for (p = posts) translate([p[0], p[1], 0]) {
            // the guide screws slide in these holes; their heads sit in the counterbores and
            // hold the pad down against the springs
            translate([0, 0, -1]) cylinder(d = screw_d + 0.3, h = top_t + 2, $fn = 16);
            translate([0, 0, top_t - 3.5]) cylinder(d = screw_head_d + 0.5, h = 3.5 + eps, $fn = 24);
            translate([0, 0, -eps]) cylinder(d = spring_od + 0.6, h = spring_pocket, $fn = 32);
        }
    }
}

module ghosts() {
    if (arcade) {
        translate([0, 0, base_h + panel_t]) scale([1, 1, dome_h / (dome_d / 2)]) intersection() {
            sphere(d = dome_d);
            cylinder(d = dome_d, h = dome_d);
        }
        translate([0, 0, base_h - button_depth]) cylinder(d = 24, h = button_depth);
    } else {
        translate([-switch_size[0] / 2, -switch_size[1] / 2, sw_hole_z - switch_hole_z])
            cube(switch_size);
        translate([0, 0, sw_hole_z - switch_hole_z + switch_size[2]])
            cylinder(d = 3, h = sw_fp_z - (sw_hole_z - switch_hole_z + switch_size[2]), $fn = 12);
    }
}

gap = 12;
function layout_size() = part == "both" ? [base_d + gap + top_d, base_d] : [base_d, base_d];

if (part == "base" || part == "both") color("SlateGray") base();
if (part == "top")
    translate([0, 0, top_t]) mirror([0, 0, 1]) top_plate();
if (part == "both")
    color(arcade ? "Gold" : "Crimson") translate([base_d / 2 + gap + top_d / 2, 0, top_t]) mirror([0, 0, 1]) top_plate();
if (part == "assembled") {
    color("SlateGray") base();
    color(arcade ? "Gold" : "Crimson") translate([0, 0, top_rest_z]) top_plate();
    %ghosts();
}
