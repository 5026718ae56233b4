/*
 * The contract between the edge sampler (sampler.S, or hobby.c in the comparison build) and the
 * main loop: a ring of raw looks, the registers the sampler owns, and the cycle counts the main
 * loop needs to turn a look into the time of the edge it saw.
 *
 * Why registers: the sampler is a pin-change interrupt that must read the pins and Timer1 within a
 * few cycles of the edge. Keeping its working set in registers that no other code uses (the whole
 * firmware is built with -ffixed-r2 ... -ffixed-r17) means it reads the pins as its first
 * instruction instead of after a dozen pushes.
 */
#ifndef SAMPLER_H
#define SAMPLER_H

#include "pinout.h"

/* Ring of raw looks: 32 slots of 8 bytes, 256-byte aligned so the sampler advances its index with
 * one 8-bit add. A look reads PIND then PINC; its state folds the eight buttons into one byte, one
 * bit each (D2-D7 -> bits 2-7, A0/A1 -> bits 0-1), 0 = pressed.
 *   loop slot  [state, timer low, -, 0]: a look of the sampling loop that showed a change (the
 *              look before it in the ring, of the same interrupt, is less than 256 cycles earlier);
 *   entry slot [state, timer low, timer high, KIND_ENTRY, first, before, second]: the look on
 *              entering the interrupt, `first` and `second` the next two loop passes' looks
 *              (GAP_ENTRY, then GAP_SECOND later), `before` what the sampler saw last before this
 *              interrupt (when it differs from what the slots stored showed, looks were lost to a
 *              full ring);
 *   KIND_EXACT in the comparison build (time used as is).
 * The main loop zeroes `kind` when it frees a slot, so loop slots need not write it. */
#define RAW_SLOTS 32
#define RAW_SLOT_SIZE 8
#define KIND_ENTRY SAMPLER_ITERATIONS /* written from rBudget */
#define KIND_EXACT 0xFF

/* Loop passes after the one that follows every stored look, before the sampler returns. */
#define SAMPLER_ITERATIONS 20

/* Cycle counts of sampler.S, from the instant a look reads PINC (PIND is read the cycle before):
 *   SNAP_TIMER_OFFSET  a loop look that showed a change reads Timer1 this many cycles after it
 *                      (SNAP_TIMER_OFFSET_ENTRY for the entry look);
 *   ENTRY_LATENCY_MIN/MAX  from an edge to the entry look, when the CPU was running the main
 *                      loop (the instruction in progress finishes, the vector jumps; on a real
 *                      chip add the 4-cycle interrupt response and the pin synchroniser);
 *   GAP_ENTRY          entry look -> first loop pass, GAP_SECOND -> the second (both stored with it);
 *   GAP_FIRST          second loop pass -> the next look;
 *   GAP_CHANGE         a loop look that stored a change -> the next one;
 *   GAP_IDLE           one loop pass that saw no change;
 *   GAP_EXIT           last loop look -> the final check before returning (unstored);
 *   EXIT_TO_LOOP       final check that saw a change -> the loop look that stores it;
 *   EXIT_WINDOW        final check -> the earliest entry look of the next interrupt.
 * tests/test_firmware.py measures the resulting errors against edges injected at every phase. */
#define SNAP_TIMER_OFFSET 7
#define SNAP_TIMER_OFFSET_ENTRY 1
#define ENTRY_LATENCY_MIN 4
#define ENTRY_LATENCY_MAX 8
#define GAP_ENTRY 15
#define GAP_SECOND 13
#define GAP_FIRST 17
#define GAP_CHANGE 18
#define GAP_IDLE 10
#define GAP_EXIT 11
#define EXIT_TO_LOOP 12
#define EXIT_WINDOW 22
/* A loop slot's one timer byte places it after the interrupt's previous stored look: from that
 * look (an entry's second pass) to the latest look that can be stored next must stay under 256. */
#if GAP_CHANGE + SAMPLER_ITERATIONS * GAP_IDLE + GAP_EXIT + EXIT_TO_LOOP >= 256 || \
    GAP_FIRST + SAMPLER_ITERATIONS * GAP_IDLE + GAP_EXIT + EXIT_TO_LOOP >= 256
#error "a loop slot's timer byte cannot place it"
#endif

#ifdef __ASSEMBLER__

/* Registers owned by the sampler (never touched by compiled code). */
#define rD r2       /* PIND, then the look's state */
#define rC r3       /* PINC */
#define rTL r4      /* Timer1 at the look */
#define rTH r5
#define rEntries r6 /* counts the interrupt's entries (clock_now reads Timer1 without cli) */
#define rETH r7
#define rD2 r8      /* the entry's first pass, until stored */
#define rE r9       /* spare */
#define rLast r10   /* the state of the last look that showed a change (stored or lost) */
#define rCount r11  /* loop passes left */
#define rSreg r12
#define rMaskD r13
#define rMaskC r14
#define rBudget r15 /* SAMPLER_ITERATIONS */
#define rHead r16   /* next slot to write (byte offset in the ring); read by main */
#define rFull r17   /* the slot the sampler must not write (the one before main's tail) */

#else

#include <stdint.h>

/* The sampler's registers, declared in every C file (board.h includes this header) so that the
 * compiler leaves them alone even where -ffixed-rN is not passed (the Arduino IDE build). The
 * main loop reads or sets the named ones. */
register uint8_t sampler_reserved_r2 asm("r2");
register uint8_t sampler_reserved_r3 asm("r3");
register uint8_t sampler_reserved_r4 asm("r4");
register uint8_t sampler_reserved_r5 asm("r5");
register uint8_t sampler_entries asm("r6");
register uint8_t sampler_reserved_r7 asm("r7");
register uint8_t sampler_reserved_r8 asm("r8");
register uint8_t sampler_reserved_r9 asm("r9");
register uint8_t sampler_reserved_r11 asm("r11");
register uint8_t sampler_reserved_r12 asm("r12");
register uint8_t sampler_head asm("r16");
register uint8_t sampler_full asm("r17");
register uint8_t sampler_last asm("r10");
register uint8_t sampler_mask_d asm("r13");
register uint8_t sampler_mask_c asm("r14");
register uint8_t sampler_budget asm("r15");

extern volatile uint8_t raw_ring[RAW_SLOTS * RAW_SLOT_SIZE];

/* Set up the pins' interrupts and the sampler's registers; `state` is the buttons now. */
void sampler_init(uint8_t state);
/* The buttons as the sampler folds them. */
uint8_t sampler_read(void);

#endif
#endif
