/* Starting the sampler (either build): pull-ups, pin-change interrupts, its registers. */
#include <avr/io.h>

#include "pinout.h"
#include "sampler.h"

/* The masks the sampler uses are the table's buttons, and nothing else shares their ports' bits. */
_Static_assert(PINOUT_MASK(PINOUT_BUTTONS, D) == BUTTON_MASK_D, "BUTTON_MASK_D must match the pinout table");
_Static_assert(PINOUT_MASK(PINOUT_BUTTONS, C) == BUTTON_MASK_C, "BUTTON_MASK_C must match the pinout table");
_Static_assert(PINOUT_MASK(PINOUT_BUTTONS, B) == 0, "buttons live on ports C and D only");
_Static_assert((PINOUT_MASK(PINOUT_LAMPS, D) & BUTTON_MASK_D) == 0, "a lamp on a button pin");
_Static_assert((PINOUT_MASK(PINOUT_LAMPS, C) & BUTTON_MASK_C) == 0, "a lamp on a button pin");
_Static_assert((BUTTON_MASK_D & BUTTON_MASK_C) == 0, "the folded state needs disjoint bits");
_Static_assert((BUTTON_MASK_D & 0x03) == 0, "PD0/PD1 are the serial line");

uint8_t sampler_read(void) {
    return (uint8_t)((PIND & BUTTON_MASK_D) | (PINC & BUTTON_MASK_C));
}

void sampler_init(uint8_t state) {
    sampler_mask_d = BUTTON_MASK_D;
    sampler_mask_c = BUTTON_MASK_C;
    sampler_budget = SAMPLER_ITERATIONS;
    sampler_head = 0;
    sampler_full = (uint8_t)(0 - RAW_SLOT_SIZE);
    sampler_last = state;
    PCMSK2 = BUTTON_MASK_D;
    PCMSK1 = BUTTON_MASK_C;
    PCIFR = _BV(PCIF1) | _BV(PCIF2);
    PCICR = _BV(PCIE1) | _BV(PCIE2);
}
