/*
 * The edge sampler: the pin-change interrupt of the eight buttons.
 *
 * Hobby designs read the time in a C interrupt after its prologue (2-3 us late), and a second
 * press that comes while that interrupt runs waits for it to finish (4-14 us late). This one:
 *   - reads PIND, PINC, PIND again and Timer1 as its first instructions (a "snapshot"); the
 *     snapshot is kept only when PIND did not change around the PINC read, so the eight buttons
 *     are seen at one instant and simultaneous edges always land in the same snapshot;
 *   - stores the snapshot in a ring and then keeps sampling in a tight loop (15 cycles per pass)
 *     for SAMPLER_ITERATIONS passes after the last change, so the second and later presses of a
 *     close group are caught by the loop within a pass, not by the next interrupt;
 *   - never formats or sends anything: the main loop turns snapshots into events.
 * Every snapshot is therefore taken at most one loop pass after the edge it shows, and the main
 * loop knows from the cycle counts below how long that pass was, so it reports the middle of it.
 *
 * Cycle counts are noted as "@n", relative to the PINC read of the snapshot above them; the
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

    .section .bss
    .global raw_dropped
raw_dropped:
    .skip 1

    .text

    .global PCINT1_vect
    .global PCINT2_vect
PCINT1_vect:
PCINT2_vect:
    in   rD, IO(PIND)
    in   rC, IO(PINC)           /* @0: the entry snapshot */
    in   rD2, IO(PIND)          /* @1 */
    lds  rTL, TCNT1L            /* @2: Timer1 (SNAP_TIMER_OFFSET) */
    lds  rTH, TCNT1H            /* @4 */
    in   rSreg, IO(SREG)        /* @6: nothing above touched the flags */
    push r30                    /* @7 */
    push r31                    /* @9 */
    mov  rCount, rBudget        /* @11: the slot's kind says "entry, full budget" */
entry_check:
    and  rD, rMaskD             /* @12 */
    and  rD2, rMaskD            /* @13 */
    cp   rD, rD2                /* @14 */
    brne entry_resnap           /* @15: PIND changed around the PINC read */
    and  rC, rMaskC             /* @16 */
    or   rD, rC                 /* @17 */
    mov  rE, rD                 /* @18 */
    movw rETL, rTL              /* @19 */
    mov  r30, rHead             /* @20 */
    ldi  r31, hi8(raw_ring)     /* @21 */

    /* First loop pass: its snapshot first, then the entry slot, which carries this snapshot's
     * state too (its time is known: GAP_ENTRY after the entry's), so a second press right
     * behind the first costs no extra store. */
first_pass:
    in   rD, IO(PIND)           /* @22 */
    in   rC, IO(PINC)           /* @23 = GAP_ENTRY */
    in   rD2, IO(PIND)
    and  rD, rMaskD
    and  rC, rMaskC
    and  rD2, rMaskD
    cp   rD, rD2
    brne first_pass             /* PIND changed around the PINC read: take it again (rare) */
    or   rD, rC
    cp   r30, rFull
    breq entry_full
    std  Z+0, rE
    std  Z+1, rETL
    std  Z+2, rETH
    std  Z+3, rCount
    std  Z+4, rD
    subi r30, -RAW_SLOT_SIZE    /* 8-bit add: the ring is 256 bytes, aligned */
entry_stored:
    mov  rLast, rD
    rjmp loop                   /* the next snapshot @25 after this pass's (GAP_FIRST) */

entry_resnap:                   /* @17 */
    dec  rCount                 /* the slot's kind says "entry, retaken" */
    in   rD, IO(PIND)
    in   rC, IO(PINC)           /* @17 after the first try (RESNAP_DELAY) */
    in   rD2, IO(PIND)
    lds  rTL, TCNT1L
    lds  rTH, TCNT1H
    rjmp entry_check

entry_full:
    lds  rETL, raw_dropped
    inc  rETL
    sts  raw_dropped, rETL
    rjmp entry_stored

    /* The sampling loop: 15 cycles per pass without a change. */
loop:
    in   rD, IO(PIND)
    in   rC, IO(PINC)           /* @0 */
    in   rD2, IO(PIND)          /* @1 */
    lds  rTL, TCNT1L            /* @2 */
    lds  rTH, TCNT1H            /* @4 */
compare:
    and  rD, rMaskD             /* @6 */
    and  rC, rMaskC             /* @7 */
    or   rD, rC                 /* @8 */
    cp   rD, rLast              /* @9 */
    brne changed                /* @10 */
    dec  rCount                 /* @11 */
    brne loop                   /* @12; the next snapshot @15 (GAP_IDLE) */

    /* Leaving: clear the pending pin-change flags (every edge so far was sampled), then look once
     * more, so an edge between the last pass and the clear is not left waiting. */
    ldi  r31, (1 << PCIF1) | (1 << PCIF2)   /* @13 */
    out  IO(PCIFR), r31         /* @14 */
    in   rD, IO(PIND)           /* @15 */
    in   rC, IO(PINC)           /* @16: the final check (GAP_EXIT) */
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
    reti                        /* the next entry snapshot is EXIT_WINDOW after the final check */

exit_changed:
    mov  rCount, rBudget
    rjmp loop                   /* its snapshot @12 after the final check (EXIT_TO_LOOP) */

changed:                        /* @12 */
    and  rD2, rMaskD
    or   rD2, rC
    cp   rD2, rD
    brne loop                   /* PIND changed around the PINC read: take it again */
    cp   r30, rFull             /* @16 */
    breq full
    std  Z+0, rD                /* @18 */
    std  Z+1, rTL
    std  Z+2, rTH
    subi r30, -RAW_SLOT_SIZE    /* @24 */
stored:
    mov  rLast, rD              /* @25 */
    mov  rCount, rBudget        /* @26 */
    rjmp loop                   /* @27; the next snapshot @30 (GAP_CHANGE) */

full:
    lds  rD2, raw_dropped
    inc  rD2
    sts  raw_dropped, rD2
    rjmp stored

#endif
