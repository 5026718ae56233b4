/*
 * The edge sampler: the pin-change interrupt of the eight buttons.
 *
 * Hobby designs read the time in a C interrupt after its prologue (2-3 us late), and a second
 * press that comes while that interrupt runs waits for it to finish (4-14 us late). This one:
 *   - reads PIND, PINC and Timer1 as its first instructions (a "look");
 *   - stores the look in a ring and then keeps sampling in a tight loop (10 cycles per pass)
 *     for SAMPLER_ITERATIONS passes after the last change, so the second and later presses of a
 *     close group are caught by the loop within a pass, not by the next interrupt;
 *   - never formats or sends anything: the main loop turns looks into events.
 * Every look is therefore taken at most one loop pass after the edge it shows, and the main
 * loop knows from the cycle counts below how long that pass was, so it reports the middle of it.
 *
 * Cycle counts are noted as "@n", relative to the PINC read of the look above them; the
 * constants in sampler.h are taken from them and checked by the simulator tests.
 */
#include <avr/io.h>
#include "sampler.h"

#ifndef HOBBY_SAMPLER /* the comparison build uses hobby.c instead */

#define IO(reg) _SFR_IO_ADDR(reg)

    .section .bss.raw_ring,"aw",@nobits
    .balign 256
    .global raw_ring
raw_ring:
    .skip RAW_SLOTS * RAW_SLOT_SIZE

    .text

    .global PCINT1_vect
    .global PCINT2_vect
PCINT1_vect:
PCINT2_vect:
    in   rD, IO(PIND)
    in   rC, IO(PINC)           /* @0: the entry look */
    lds  rTL, TCNT1L            /* @1: Timer1 (SNAP_TIMER_OFFSET_ENTRY) */
    lds  rTH, TCNT1H            /* @3 */
    in   rSreg, IO(SREG)        /* @5: nothing above touched the flags */
    inc  rEntries               /* @6: tells clock_now its Timer1 read may have been cut */
    push r30                    /* @7 */
    push r31                    /* @9 */
    and  rD, rMaskD             /* @11 */
    and  rC, rMaskC             /* @12 */
    or   rC, rD                 /* @13: the entry look's state */

    /* Two loop passes go in the entry slot too (their times are known from the entry's), so
     * presses right behind the first cost no extra slot, and the work of storing it is spread
     * between them: the looks come 15, 13 and 17 cycles apart. */
    in   rD, IO(PIND)           /* @14 */
    in   rD2, IO(PINC)          /* @15: the first pass (GAP_ENTRY) */
    mov  r30, rHead             /* @16 */
    ldi  r31, hi8(raw_ring)     /* @17 */
    /* Stored before the ring is known to have room: a full ring's next slot is not read. */
    std  Z+0, rC                /* @18 */
    std  Z+1, rTL               /* @20 */
    std  Z+2, rTH               /* @22 */
    and  rD, rMaskD             /* @24 */
    and  rD2, rMaskC            /* @25 */
    or   rD2, rD                /* @26: the first pass's state */
    in   rD, IO(PIND)           /* @27 */
    in   rC, IO(PINC)           /* @28: the second pass (GAP_SECOND after the first) */
    std  Z+3, rBudget           /* @29: kind KIND_ENTRY */
    std  Z+4, rD2               /* @31 */
    std  Z+5, rLast             /* @33: what the sampler saw last before this interrupt */
    and  rD, rMaskD             /* @35 */
    and  rC, rMaskC             /* @36 */
    or   rD, rC                 /* @37: the second pass's state */
    std  Z+6, rD                /* @38 */
    cpse r30, rFull             /* @40: a full ring keeps the slot for the next look */
    subi r30, -RAW_SLOT_SIZE    /* @41: 8-bit add: the ring is 256 bytes, aligned */
    mov  rLast, rD              /* @42 */
    mov  rCount, rBudget        /* @43 */
    /* A loop pass, as after any stored look (see `stored`): the next look @45 (GAP_FIRST). */
    in   rD, IO(PIND)           /* @44 */
    in   rC, IO(PINC)           /* @45 */
    and  rD, rMaskD
    and  rC, rMaskC
    or   rD, rC
    cp   rD, rLast
    brne changed
    nop
    rjmp loop

    /* The sampling loop: 10 cycles per pass without a change. */
loop:
    in   rD, IO(PIND)
    in   rC, IO(PINC)           /* @0 */
    and  rD, rMaskD             /* @1 */
    and  rC, rMaskC             /* @2 */
    or   rD, rC                 /* @3 */
    cp   rD, rLast              /* @4 */
    brne changed                /* @5 */
    dec  rCount                 /* @6 */
    brne loop                   /* @7; the next look @10 (GAP_IDLE) */

    /* Leaving: clear the pending pin-change flags (every edge so far was sampled), then look once
     * more, so an edge between the last pass and the clear is not left waiting. */
leave:
    ldi  r31, (1 << PCIF1) | (1 << PCIF2)   /* @8 */
    out  IO(PCIFR), r31         /* @9 */
    in   rD, IO(PIND)           /* @10 */
    in   rC, IO(PINC)           /* @11: the final check (GAP_EXIT) */
    and  rD, rMaskD
    and  rC, rMaskC
    or   rD, rC
    ldi  r31, hi8(raw_ring)
    cp   rD, rLast
    brne exit_changed
    mov  rHead, r30
    out  IO(SREG), rSreg
    pop  r31
    pop  r30
    reti                        /* the next entry look is EXIT_WINDOW after the final check */

exit_changed:
    mov  rCount, rBudget
    rjmp loop                   /* its look EXIT_TO_LOOP after the final check */

    /* A look that shows a change is stored with Timer1's low byte only: the previous stored look
     * of this interrupt is always less than 256 cycles before it (sampler.h), which places it. A
     * full ring keeps the slot (the look is lost; the next entry slot says what was seen). */
changed:                        /* @7 */
    lds  rTL, TCNT1L            /* @7: Timer1 (SNAP_TIMER_OFFSET) */
    std  Z+0, rD                /* @9 */
    std  Z+1, rTL               /* @11 */
    cpse r30, rFull             /* @13 */
    subi r30, -RAW_SLOT_SIZE    /* @14 */
stored:
    mov  rLast, rD              /* @15 */
    mov  rCount, rBudget        /* @16 */
    /* A loop pass once more, here rather than a jump back: the next look @18 (GAP_CHANGE). It
     * does not count (SAMPLER_ITERATIONS more follow) and lasts GAP_IDLE as the others. */
    in   rD, IO(PIND)           /* @17 */
    in   rC, IO(PINC)           /* @18 */
    and  rD, rMaskD             /* @19 */
    and  rC, rMaskC             /* @20 */
    or   rD, rC                 /* @21 */
    cp   rD, rLast              /* @22 */
    brne changed                /* @23 */
    nop                         /* @24 */
    rjmp loop                   /* @25; the next look @28 */

#endif
