/* The board clock: Timer1 free-running at the CPU clock, extended to 32 bits. */
#include <avr/io.h>

#include "board.h"
#include "sampler.h"

uint16_t clock_high;

void clock_init(void) {
    /* Timer0 (the comparison build's micros()) and Timer1 start together from zero, so both
     * builds count time from the same instant. */
    GTCCR = _BV(TSM) | _BV(PSRSYNC);
    TCCR1A = 0;
    TCNT1 = 0;
    /* Timer0 at clk/64 (4 us): the main loop's pace, and the comparison build's micros(). */
    TCCR0A = 0;
    TCNT0 = 0;
    TCCR0B = _BV(CS01) | _BV(CS00);
    TIFR1 = _BV(TOV1);
    TCCR1B = _BV(CS10); /* tick 0: the simulator tests take this write as the clock's origin */
    GTCCR = 0;
}

static inline uint8_t sampler_entry_count(void) {
    uint8_t count;
    __asm__ volatile("mov %0, r6" : "=r"(count)); /* rEntries: the sampler changes it at any time */
    return count;
}

uint32_t clock_now(void) {
    /* Timer1's two bytes pass through one TEMP register, which the sampler uses too: read them
     * again if it ran in between (its entry count moved). Not cli(): an interrupt held off for a
     * few cycles would date the edge that raised it as many cycles late. */
    uint8_t entries, lo, hi, flags;
    do {
        entries = sampler_entry_count();
        lo = TCNT1L;
        hi = TCNT1H;
        flags = TIFR1;
    } while (entries != sampler_entry_count());
    uint16_t high = clock_high;
    if (flags & _BV(TOV1)) {
        /* An overflow not yet counted: it belongs before `now` unless `now` was read just
         * before the wrap. The main loop comes here every few microseconds, so the two cases are
         * told apart by the top bit. */
        TIFR1 = _BV(TOV1);
        clock_high = high + 1;
        if (!(hi & 0x80)) {
            high++;
        }
    }
    union {
        uint32_t value;
        uint8_t bytes[4];
    } now = {.bytes = {lo, hi, (uint8_t)high, (uint8_t)(high >> 8)}};
    return now.value;
}
