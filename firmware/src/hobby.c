/*
 * The comparison build only (`make baseline`): edges timed the way typical hobby sketches do it,
 * a micros() clock (Timer0 at clk/64 plus an overflow interrupt, 4 us steps) read in a plain C
 * pin-change interrupt. It exists so the benchmark can show what the sampler in sampler.S gains;
 * never flash it for a game.
 */
#ifdef HOBBY_SAMPLER
#include <avr/interrupt.h>
#include <avr/io.h>

#include "board.h"
#include "sampler.h"

volatile uint8_t raw_ring[RAW_SLOTS * RAW_SLOT_SIZE] __attribute__((aligned(256)));
_Static_assert(RAW_SLOTS * RAW_SLOT_SIZE == 256, "the ring index is one byte");
static volatile uint32_t timer0_overflows;

ISR(TIMER0_OVF_vect) {
    timer0_overflows++;
}

static uint32_t micros(void) {
    uint8_t sreg = SREG;
    cli();
    uint32_t overflows = timer0_overflows;
    uint8_t t = TCNT0;
    if ((TIFR0 & _BV(TOV0)) && t < 255) {
        overflows++;
    }
    SREG = sreg;
    return ((overflows << 8) + t) * 4;
}

ISR(PCINT2_vect) {
    uint32_t ticks = micros() * TICKS_PER_US;
    uint8_t state = (uint8_t)((PIND & BUTTON_MASK_D) | (PINC & BUTTON_MASK_C));
    sampler_last = state; /* what it saw last, as the sampler keeps it (buttons.c compares) */
    if (sampler_head == sampler_full) {
        return; /* buttons.c finds the lost look by sampler_last */
    }
    volatile uint8_t *slot = &raw_ring[sampler_head];
    slot[0] = state;
    slot[1] = (uint8_t)ticks;
    slot[2] = (uint8_t)(ticks >> 8);
    slot[3] = KIND_EXACT;
    sampler_head += RAW_SLOT_SIZE;
}

ISR(PCINT1_vect, ISR_ALIASOF(PCINT2_vect));

void hobby_init(void) {
    TIMSK0 = _BV(TOIE0);
}

#endif
