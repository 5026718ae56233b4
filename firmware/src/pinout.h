/*
 * The buzzer box's pinout: the one table the firmware, the simulator tests and the docs read.
 *
 * Buttons sit on PORTD (D2-D7) and PORTC (A0, A1); lamps on PORTB and PORTC; the beeper on OC2A so
 * Timer2 makes the tone in hardware. PD0/PD1 are the USB serial link and PB6/PB7 the crystal.
 *
 * Why this split: the sampler reads PIND and PINC and folds them into one byte (D2-D7 -> bits 2-7,
 * A0/A1 -> bits 0-1), so the eight buttons are one look. Lamps on PORTC are set with
 * single-bit instructions, which never touch the button pins' pull-ups.
 *
 * Columns: number, AVR port letter, bit, Arduino pin name.
 */
#ifndef PINOUT_H
#define PINOUT_H

#define PINOUT_BUTTONS(X) \
    X(1, D, 2, "D2")      \
    X(2, D, 3, "D3")      \
    X(3, D, 4, "D4")      \
    X(4, D, 5, "D5")      \
    X(5, D, 6, "D6")      \
    X(6, D, 7, "D7")      \
    X(7, C, 0, "A0")      \
    X(8, C, 1, "A1")

#define PINOUT_LAMPS(X)   \
    X(1, B, 0, "D8")      \
    X(2, B, 1, "D9")      \
    X(3, B, 2, "D10")     \
    X(4, B, 4, "D12")     \
    X(5, B, 5, "D13")     \
    X(6, C, 2, "A2")      \
    X(7, C, 3, "A3")      \
    X(8, C, 4, "A4")

#define PINOUT_BEEPER(X)  \
    X(1, B, 3, "D11")

/* The bits a table puts on one port, as a constant: PINOUT_MASK(PINOUT_LAMPS, B). */
#define PINOUT_PORT_B 1
#define PINOUT_PORT_C 2
#define PINOUT_PORT_D 3
#define PINOUT_BIT_B(n, port, bit, label) | (PINOUT_PORT_##port == PINOUT_PORT_B ? 1 << (bit) : 0)
#define PINOUT_BIT_C(n, port, bit, label) | (PINOUT_PORT_##port == PINOUT_PORT_C ? 1 << (bit) : 0)
#define PINOUT_BIT_D(n, port, bit, label) | (PINOUT_PORT_##port == PINOUT_PORT_D ? 1 << (bit) : 0)
#define PINOUT_MASK(table, port) (0 table(PINOUT_BIT_##port))

#define BUTTON_COUNT 8
#define LAMP_COUNT 8

/* The button bits of PIND and PINC (the sampler masks with these; main.c checks them against the
 * table at compile time). */
#define BUTTON_MASK_D 0xFC
#define BUTTON_MASK_C 0x03

#endif
