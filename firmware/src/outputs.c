/*
 * Lamps and beeper. Lamp pins are written with read-modify-write of their port registers, which
 * leaves the button pins' pull-up bits as they are (PORTx reads back what was written, not the
 * pins). The beeper is Timer2 toggling OC2A in hardware: no interrupt competes with the sampler.
 */
#include <avr/io.h>

#include "board.h"
#include "outputs.h"
#include "pinout.h"

#define BLINK_TICKS (125UL * TICKS_PER_MS) /* 4 Hz: 125 ms on, 125 ms off */

static uint8_t lamps_on, lamps_blink;
static uint8_t beeping;
uint8_t outputs_busy = 1;
static uint32_t beep_started, beep_ticks;

#define LAMP_MASK_B PINOUT_MASK(PINOUT_LAMPS, B)
#define LAMP_MASK_C PINOUT_MASK(PINOUT_LAMPS, C)
#define LAMP_MASK_D PINOUT_MASK(PINOUT_LAMPS, D)
#define BEEPER_MASK_B PINOUT_MASK(PINOUT_BEEPER, B)
_Static_assert(BEEPER_MASK_B == _BV(PB3), "the beeper must be on OC2A (PB3, D11)");

/* Which port bits light the lamps in `lamps` (bit n-1 = lamp n). */
#define LAMP_BITS(n, port, bit, label) \
    if (lamps & (1 << ((n) - 1))) {      \
        on_##port |= 1 << (bit);         \
    }

static void write_lamps(uint8_t lamps) {
    uint8_t on_B = 0, on_C = 0, on_D = 0;
    PINOUT_LAMPS(LAMP_BITS)
    (void)on_D;
    PORTB = (uint8_t)((PORTB & ~LAMP_MASK_B) | on_B);
    PORTC = (uint8_t)((PORTC & ~LAMP_MASK_C) | on_C);
#if LAMP_MASK_D
    PORTD = (uint8_t)((PORTD & ~LAMP_MASK_D) | on_D);
#endif
}

void outputs_init(void) {
    DDRB |= LAMP_MASK_B | BEEPER_MASK_B;
    DDRC |= LAMP_MASK_C;
#if LAMP_MASK_D
    DDRD |= LAMP_MASK_D;
#endif
    write_lamps(0);
}

void outputs_lamps(uint8_t on, uint8_t blink) {
    lamps_on = on;
    lamps_blink = blink;
    outputs_busy = 1;
}

static void beeper_off(void) {
    TCCR2A = 0;
    TCCR2B = 0;
    PORTB &= (uint8_t)~BEEPER_MASK_B;
    beeping = 0;
}

uint8_t outputs_beep(uint16_t hz, uint16_t ms, uint32_t now) {
    if (hz == 0) {
        beeper_off();
        return 1;
    }
    if (hz < 100 || hz > 10000) {
        return 0;
    }
    /* Toggling OC2A at each compare match gives F_CPU / (2 * prescale * (1 + OCR2A)) Hz: take
     * the smallest prescaler that fits OCR2A in 8 bits. */
    static const uint16_t prescales[] = {8, 32, 64, 128, 256, 1024};
    static const uint8_t selects[] = {2, 3, 4, 5, 6, 7};
    for (uint8_t i = 0; i < sizeof prescales / sizeof prescales[0]; i++) {
        uint32_t top = F_CPU / (2UL * prescales[i] * hz);
        if (top >= 1 && top <= 256) {
            OCR2A = (uint8_t)(top - 1);
            TCNT2 = 0;
            TCCR2A = _BV(COM2A0) | _BV(WGM21);
            TCCR2B = selects[i];
            beeping = 1;
            outputs_busy = 1;
            beep_started = now;
            beep_ticks = (uint32_t)ms * TICKS_PER_MS;
            return 1;
        }
    }
    return 0;
}

void outputs_update(uint32_t now) {
    if (beeping && now - beep_started >= beep_ticks) {
        beeper_off();
    }
    static uint32_t blink_at;
    static uint8_t blink_phase;
    if (now - blink_at >= BLINK_TICKS) {
        blink_at = now;
        blink_phase ^= 1;
    }
    uint8_t lit = lamps_on & (uint8_t)~lamps_blink;
    if (blink_phase) {
        lit |= lamps_blink;
    }
    static uint8_t shown = 0xFF;
    if (lit != shown) {
        shown = lit;
        write_lamps(lit);
    }
    outputs_busy = beeping || lamps_blink;
}
