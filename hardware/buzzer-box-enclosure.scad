// Buzzer box enclosure: the Arduino (Uno, or a Nano on a stripboard) that reads up to eight slap
// buttons, with a socket per player, the USB cable to the Pi, a grille for the beeper and a
// screwed lid. Pinout: firmware/README.md. All sizes are in millimetres.
//
// Render for printing:  openscad -o box.stl -D 'part="base"' buzzer-box-enclosure.scad
// The "both" layout puts the base and the lid (upside down, as it prints) side by side.

/* [What to print] */
part = "both";          // "both" | "base" | "lid"

/* [Board] */
board = "uno";          // "uno" | "nano" (a Nano plugged into a stripboard, see nano_* below)

/* [Shell] */
wall = 2.5;             // walls and floor: 6 perimeters of a 0.4 mm nozzle, stiff enough for sockets
                        // that get yanked when someone trips over a pad cable
floor_t = 2.5;          // floor thickness (same reasoning as the wall)
clearance = 0.5;        // gap around the board and between printed parts: absorbs print tolerance
standoff_h = 6;         // the board sits this high above the floor, clear of its solder joints and
                        // of wires routed underneath
wire_headroom = 25;     // free height above the board's PCB: headers are 8.5 mm and a Dupont
                        // housing adds 14 mm, plus a bend in the wire
corner_r = 3;           // outside corner radius: kinder to hands and to warping on the print bed

/* [Player sockets] */
// Each player's pad is a 3-wire cable: button (to the button pin, pulled up by the board), lamp
// (from the lamp pin) and a shared ground. The default connector is a 3-pin GX12 aviation
// socket: it screws tight, so a yanked cable does not fall out mid-round, and its pins never
// touch each other while plugging in. A TRS audio jack does short tip and ring to the sleeve as
// it slides in, which is a false press and a lamp output shorted to ground.
// Other connectors, with the panel hole they need:
//   GX12 (M12 thread) 12.2 mm | GX16 (M16) 16.2 mm | 6.35 mm (1/4") TRS jack 9.5 mm |
//   3.5 mm TRS jack (PJ-392 style) 6.0 mm
sockets = 8;            // number of players (the firmware reads at most 8)
socket_hole_d = 12.2;   // panel hole for the connector's thread
socket_flange_d = 16;   // widest part on the outside (nut or flange): sets the minimum pitch
socket_pitch = 22;      // centre-to-centre: leaves room for fingers to turn the plugs' rings
socket_depth = 22;      // how far the connector and its solder cups reach into the box
socket_z = 14;          // socket centre above the bottom of the box
labels = true;          // engrave "1".."8" above the sockets, matching the pinout's player numbers
label_size = 7;         // text height
label_depth = 0.6;      // engraving depth: 3 layers, visible but far from cutting through the wall

/* [USB cable] */
usb_plug_margin = 2;    // the cutout is this much bigger than the board's connector all round,
                        // so the plug's moulded body goes in as far as it needs

/* [Beeper] */
piezo_d = 12;           // the passive piezo's diameter (12-14 mm buzzers are common)
piezo_h = 9;            // its height, pins excluded
grille_hole_d = 1.8;    // small holes keep fingers and crumbs out but let the sound through
grille_pitch = 3.2;

/* [Lid] */
lid_t = 2.5;            // lid plate thickness
lip_h = 3;              // the lip that drops inside the walls and keeps the lid centred
lip_w = 1.6;
screw_d = 3.4;          // M3 clearance in the lid
screw_head_d = 6.5;     // countersink for M3 flat-head screws
screw_pilot_d = 2.5;    // M3 self-tapping pilot in the corner posts (or 4.0 for a heat-set insert)
post_d = 7;             // corner post diameter: about 2 mm of plastic around the pilot
arm_button = false;     // a 30 mm arcade button on the lid to arm a round: wired to a button input
                        // no player uses (the 8th with 7 players) and paired as the arm button
arm_button_hole_d = 30; // standard 30 mm arcade buttons (snap-in or nut) want a 30 mm hole
arm_button_depth = 32;  // body and microswitch below the panel
arm_button_keepout_d = 36; // the microswitch sticks out sideways from the body

/* [Feet] */
foot_d = 10.5;          // recesses for 10 mm self-adhesive rubber bumpers
foot_depth = 1;         // shallower than the bumper so it still touches the table

/* [Preview] */
show_board = true;      // a see-through board in the preview to check the fit; never exported

/* [Detail] */
$fn = 40;
eps = 0.01;

// ---------------------------------------------------------------------------------------------
// Board data, in the board's own coordinates: x along the long edge starting at the USB edge,
// y across, z up from the bottom of the PCB.

pcb_t = 1.6;

// Arduino Uno R3, from the official drawing (2.7" x 2.1"): mounting holes 3.2 mm; the USB-B
// jack is 12 mm wide, 10.9 mm tall, centred 38.0 mm from the edge under the power header and
// reaching 6.35 mm past the board's edge.
uno_size = [68.6, 53.4];
uno_holes = [[13.97, 2.54], [15.24, 50.8], [66.04, 7.62], [66.04, 35.56]];
uno_usb = [38.0, 12.0, 10.9, 6.35];   // centre y, width, height above the PCB, overhang

// The Nano (18 x 45 mm) has only 1.8 mm holes at its corners, so it plugs into two 1x15 female
// headers on a 70 x 50 mm stripboard (the common 5 x 7 cm perfboard) that also carries the wires
// to the sockets. Stripboards rarely come with mounting holes: drill 3.2 mm holes 3.5 mm in from
// each corner. The Nano sits across the middle with its mini-USB end flush with the stripboard's
// short edge; its mini-B jack (7.7 x 4 mm) overhangs the Nano by about 1 mm.
nano_size = [45, 18];
nano_carrier = [70, 50];
nano_header_h = 8.5;    // female header height: the Nano's PCB sits on top of it
nano_hole_inset = 3.5;
nano_usb_w = 7.7;
nano_usb_h = 4.0;
nano_usb_overhang = 1.0;

function board_size() = board == "uno" ? uno_size : nano_carrier;
function board_holes() = board == "uno" ? uno_holes
    : [for (x = [nano_hole_inset, nano_carrier[0] - nano_hole_inset])
       for (y = [nano_hole_inset, nano_carrier[1] - nano_hole_inset]) [x, y]];
// [centre y, width, centre height above the PCB bottom, height, overhang past the board edge]
function board_usb() = board == "uno"
    ? [uno_usb[0], uno_usb[1], pcb_t + uno_usb[2] / 2, uno_usb[2], uno_usb[3]]
    : [nano_carrier[1] / 2, nano_usb_w, pcb_t + nano_header_h + pcb_t + nano_usb_h / 2, nano_usb_h,
       nano_usb_overhang];
// the tallest thing the board carries, above the PCB bottom
function board_parts_h() = board == "uno" ? pcb_t + uno_usb[2]
    : pcb_t + nano_header_h + pcb_t + nano_usb_h;

// ---------------------------------------------------------------------------------------------
// Layout in box coordinates: origin at the outside bottom corner, x along the front wall (where
// the sockets are), y from front to back, z up. The USB cable leaves through the left wall.

bs = board_size();
usb = board_usb();

// The sockets' solder cups take the front strip of the box; the board sits behind them, clear of
// the back corner posts so a board corner never lands on a post.
board_x0 = wall + clearance + usb[4];
board_y0 = wall + socket_depth + clearance;
board_z0 = floor_t + standoff_h;

piezo_keepout = piezo_d + 6;
free_len = piezo_keepout + (arm_button ? arm_button_keepout_d : 0) + 2 * clearance;
inner_len = max(clearance + usb[4] + bs[0] + free_len, sockets * socket_pitch + 2 * post_d);
inner_w = socket_depth + clearance + bs[1] + clearance + post_d;
inner_h = max(standoff_h + pcb_t + wire_headroom, standoff_h + board_parts_h() + 2,
              arm_button ? arm_button_depth + 3 : 0, socket_z + socket_flange_d / 2 - floor_t);

outer = [inner_len + 2 * wall, inner_w + 2 * wall, inner_h + floor_t];

posts = [for (x = [wall + post_d / 2, outer[0] - wall - post_d / 2])
         for (y = [wall + post_d / 2, outer[1] - wall - post_d / 2]) [x, y]];

socket_x = [for (i = [0 : sockets - 1])
            outer[0] / 2 + (i - (sockets - 1) / 2) * socket_pitch];

usb_centre = [board_y0 + usb[0], board_z0 + usb[2]];   // on the left wall: y, z
usb_cut = [usb[1] + 2 * usb_plug_margin, usb[3] + 2 * usb_plug_margin];

// The beeper and the optional arm button hang from the lid into the free space right of the board.
free_x0 = board_x0 + bs[0] + clearance;
piezo_pos = [free_x0 + piezo_keepout / 2, board_y0 + bs[1] / 2];
arm_pos = [free_x0 + piezo_keepout + arm_button_keepout_d / 2, board_y0 + bs[1] / 2];

assert(sockets >= 1 && sockets <= 8, "the firmware reads 1 to 8 buttons");
assert(socket_pitch >= socket_flange_d + 2, "sockets closer than their flanges");
assert(board == "uno" || board == "nano", "board must be \"uno\" or \"nano\"");
assert(part == "both" || part == "base" || part == "lid", "part must be both, base or lid");

// Figures for tests/test_hardware_models.py (one "FIG" line each, parsed as JSON values).
echo("FIG", "board", board);
echo("FIG", "board_size", bs);
echo("FIG", "board_origin", [board_x0, board_y0, board_z0]);
echo("FIG", "board_holes", board_holes());
echo("FIG", "board_parts_h", board_parts_h());
echo("FIG", "usb_on_board", [usb[0], usb[2], usb[1], usb[3], usb[4]]);
echo("FIG", "usb_cutout", [usb_centre[0], usb_centre[1], usb_cut[0], usb_cut[1]]);
echo("FIG", "wall", wall);
echo("FIG", "floor", floor_t);
echo("FIG", "clearance", clearance);
echo("FIG", "inner", [inner_len, inner_w, inner_h]);
echo("FIG", "outer", outer);
echo("FIG", "posts", posts);
echo("FIG", "post_d", post_d);
echo("FIG", "sockets", len(socket_x));
echo("FIG", "socket_x", socket_x);
echo("FIG", "socket_z", socket_z);
echo("FIG", "socket_hole_d", socket_hole_d);
echo("FIG", "socket_flange_d", socket_flange_d);
echo("FIG", "socket_depth", socket_depth);
echo("FIG", "piezo", [piezo_pos[0], piezo_pos[1], piezo_d]);
echo("FIG", "arm_button", arm_button
     ? [arm_pos[0], arm_pos[1], arm_button_hole_d, arm_button_keepout_d, arm_button_depth] : []);
echo("FIG", "lid_holes", [for (p = lid_holes_print()) [p[0], outer[1] - p[1]]]);
echo("FIG", "layout", layout_size());

// ---------------------------------------------------------------------------------------------

module rounded_box(size, r) {
    hull() for (x = [r, size[0] - r], y = [r, size[1] - r])
        translate([x, y, 0]) cylinder(r = r, h = size[2]);
}

module base() {
    difference() {
        union() {
            difference() {
                rounded_box(outer, corner_r);
                translate([wall, wall, floor_t]) cube([inner_len, inner_w, inner_h + eps]);
            }
            for (p = posts) translate([p[0], p[1], 0]) {
                cylinder(d = post_d, h = outer[2]);
                // a web into the corner so the post is part of both walls, not a lone pillar
                translate([p[0] < outer[0] / 2 ? -post_d / 2 : 0, p[1] < outer[1] / 2 ? -post_d / 2 : 0, 0])
                    cube([post_d / 2, post_d / 2, outer[2]]);
            }
            for (h = board_holes()) translate([board_x0 + h[0], board_y0 + h[1], 0])
                cylinder(d = 6, h = board_z0);
        }
        for (p = posts) translate([p[0], p[1], floor_t + 2]) cylinder(d = screw_pilot_d, h = outer[2]);
        for (h = board_holes()) translate([board_x0 + h[0], board_y0 + h[1], floor_t])
            cylinder(d = screw_pilot_d, h = board_z0);
        // player sockets through the front wall
        for (x = socket_x) translate([x, -eps, socket_z]) rotate([-90, 0, 0])
            cylinder(d = socket_hole_d, h = wall + 2 * eps);
        if (labels) for (i = [0 : sockets - 1])
            translate([socket_x[i], label_depth - eps, socket_z + socket_flange_d / 2 + 2.5])
                color("White") rotate([90, 0, 0]) linear_extrude(label_depth + eps)
                    text(str(i + 1), size = label_size, font = "Liberation Sans:style=Bold",
                         halign = "center", valign = "bottom", $fn = 8);
        // USB cable, through the left wall in line with the board's connector
        translate([-eps, usb_centre[0], usb_centre[1]]) rotate([0, 90, 0])
            linear_extrude(wall + 2 * eps) offset(r = 1) offset(delta = -1)
                square([usb_cut[1], usb_cut[0]], center = true);
        for (x = [12, outer[0] - 12], y = [12, outer[1] - 12])
            translate([x, y, -eps]) cylinder(d = foot_d, h = foot_depth + eps);
    }
}

// The lid in its print orientation: top face on the bed, lip and piezo ring pointing up. A
// feature at box position (x, y) is at (x, outer_y - y) here.
function lid_holes_print() = [for (p = posts) [p[0], outer[1] - p[1]]];
function flip(p) = [p[0], outer[1] - p[1]];

module lid() {
    difference() {
        union() {
            rounded_box([outer[0], outer[1], lid_t], corner_r);
            // lip inside the walls, interrupted at the corner posts
            difference() {
                translate([wall + clearance, wall + clearance, lid_t - eps])
                    cube([inner_len - 2 * clearance, inner_w - 2 * clearance, lip_h]);
                translate([wall + clearance + lip_w, wall + clearance + lip_w, lid_t - 1])
                    cube([inner_len - 2 * clearance - 2 * lip_w, inner_w - 2 * clearance - 2 * lip_w, lip_h + 2]);
                for (p = lid_holes_print()) translate([p[0], p[1], 0])
                    cylinder(d = post_d + 2 * clearance + 2 * lip_w, h = lid_t + lip_h + 1);
            }
            // a ring that holds the piezo (glued) right behind the grille
            translate([flip(piezo_pos)[0], flip(piezo_pos)[1], lid_t - eps]) difference() {
                cylinder(d = piezo_d + 0.4 + 3.2, h = min(piezo_h, lip_h + 2));
                translate([0, 0, -1]) cylinder(d = piezo_d + 0.4, h = piezo_h + 2);
            }
        }
        for (p = lid_holes_print()) translate([p[0], p[1], -eps]) {
            cylinder(d = screw_d, h = lid_t + 1);
            cylinder(d1 = screw_head_d, d2 = screw_d, h = (screw_head_d - screw_d) / 2);
        }
        translate([flip(piezo_pos)[0], flip(piezo_pos)[1], -eps]) {
            r = piezo_d / 2 - 1;
            n = ceil(r / grille_pitch);
            for (i = [-n : n], j = [-n : n]) {
                // a hexagonal pattern of holes inside the piezo's outline
                px = (i + (j % 2 == 0 ? 0 : 0.5)) * grille_pitch;
                py = j * grille_pitch * sqrt(3) / 2;
                if (norm([px, py]) + grille_hole_d / 2 <= r)
                    translate([px, py, 0]) cylinder(d = grille_hole_d, h = lid_t + 1, $fn = 12);
            }
        }
        if (arm_button) translate([flip(arm_pos)[0], flip(arm_pos)[1], -eps])
            cylinder(d = arm_button_hole_d, h = lid_t + lip_h + 1, $fn = 64);
    }
}

// The board as it sits in the box, with its USB connector, for the preview only.
module ghost_board() {
    translate([board_x0, board_y0, board_z0]) {
        difference() {
            cube([bs[0], bs[1], pcb_t]);
            for (h = board_holes()) translate([h[0], h[1], -1]) cylinder(d = 3.2, h = pcb_t + 2);
        }
        translate([-usb[4], usb[0] - usb[1] / 2, usb[2] - usb[3] / 2])
            cube([board == "uno" ? 16 : 9, usb[1], usb[3]]);
        if (board == "nano")
            translate([0, (bs[1] - nano_size[1]) / 2, pcb_t + nano_header_h]) cube([nano_size[0], nano_size[1], pcb_t]);
    }
}

layout_gap = 10;
function layout_size() = part == "both" ? [outer[0], 2 * outer[1] + layout_gap] : [outer[0], outer[1]];

if (part == "base" || part == "both") {
    color("SteelBlue") base();
    if (show_board) %ghost_board();
}
if (part == "lid" || part == "both")
    color("Orange") translate([0, part == "both" ? outer[1] + layout_gap : 0, 0]) lid();
