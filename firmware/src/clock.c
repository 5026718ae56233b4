/* The board clock: Timer1 free-running at the CPU clock, extended to 32 bits. */
#include <avr/interrupt.h>
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

uint32_t clock_now(void) {
    /* Interrupts off only for the two byte reads: the sampler shares Timer1's TEMP register. */
    uint8_t sreg = SREG;
    cli();
    uint8_t lo = TCNT1L;
    uint8_t hi = TCNT1H;
    uint8_t flags = TIFR1;
    SREG = sreg;
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
