/*
 * The contract between the edge sampler (sampler.S, or hobby.c in the comparison build) and the
 * main loop: a ring of raw snapshots, the registers the sampler owns, and the cycle counts the main
 * loop needs to turn a snapshot into the time of the edge it saw.
 *
 * Why registers: the sampler is a pin-change interrupt that must read the pins and Timer1 within a
 * few cycles of the edge. Keeping its working set in registers that no other code uses (the whole
 * firmware is built with -ffixed-r2 ... -ffixed-r17) means it reads the pins as its first
 * instruction instead of after a dozen pushes.
 */
#ifndef SAMPLER_H
#define SAMPLER_H

#include "pinout.h"

/* Ring of raw snapshots: 32 slots of 8 bytes, 256-byte aligned so the sampler advances its index
 * with one 8-bit add. A slot is [state, timer low, timer high, kind, first, -, -, -]:
 *   state: the eight buttons, one bit each (D2-D7 -> bits 2-7, A0/A1 -> bits 0-1), 0 = pressed;
 *   timer: Timer1 when the snapshot was taken;
 *   kind:  0 for a snapshot taken in the sampling loop; for the snapshot taken on entering the
 *          interrupt, the loop's pass budget (SAMPLER_ITERATIONS, less one per retaken entry
 *          snapshot), and then `first` is the state at the loop's first snapshot, GAP_ENTRY later;
 *          KIND_EXACT in the comparison build (time used as is).
 * The main loop zeroes `kind` when it frees a slot, so loop snapshots need not write it. */
#define RAW_SLOTS 32
#define RAW_SLOT_SIZE 8
#define KIND_EXACT 0xFF

/* Iterations the sampling loop keeps running after the last change before it returns. */
#define SAMPLER_ITERATIONS 20

/* Cycle counts of sampler.S, from the instant its snapshot reads PINC:
 *   SNAP_TIMER_OFFSET  the Timer1 value read with a snapshot is this many cycles after it;
 *   ENTRY_LATENCY_MIN/MAX  from an edge to the entry snapshot, when the CPU was running the main
 *                      loop (the instruction in progress finishes, the vector jumps; on a real
 *                      chip add the 4-cycle interrupt response and the pin synchroniser);
 *   RESNAP_DELAY       how much later the first retaken entry snapshot is (RESNAP_AGAIN for each
 *                      further retake);
 *   GAP_ENTRY          entry snapshot -> first loop snapshot (GAP_ENTRY_RESNAP after a retake);
 *   GAP_FIRST          first loop snapshot -> second (the first pass stores the entry slot);
 *   GAP_CHANGE         a loop snapshot that stored a change -> the next one;
 *   GAP_IDLE           one loop pass that saw no change;
 *   GAP_EXIT           last loop snapshot -> the final check before returning (untimed);
 *   EXIT_TO_LOOP       final check that saw a change -> the loop snapshot that stores it;
 *   EXIT_WINDOW        final check -> the earliest entry snapshot of the next interrupt.
 * tests/test_firmware.py measures the resulting errors against edges injected at every phase. */
#define SNAP_TIMER_OFFSET 2
#define ENTRY_LATENCY_MIN 4
#define ENTRY_LATENCY_MAX 8
#define RESNAP_DELAY 19
#define RESNAP_AGAIN 15
#define GAP_ENTRY 23
#define GAP_ENTRY_RESNAP 19
#define GAP_FIRST 25
#define GAP_CHANGE 30
#define GAP_IDLE 15
#define GAP_EXIT 16
#define EXIT_TO_LOOP 12
#define EXIT_WINDOW 22

#ifdef __ASSEMBLER__

/* Registers owned by the sampler (never touched by compiled code). */
#define rD r2       /* PIND snapshot, then the combined state */
#define rC r3       /* PINC snapshot */
#define rTL r4      /* Timer1 at the snapshot (movw pair) */
#define rTH r5
#define rETL r6     /* the entry snapshot's Timer1 (movw pair) */
#define rETH r7
#define rD2 r8      /* PIND re-read: the snapshot is consistent when it did not change */
#define rE r9       /* the entry snapshot's state */
#define rLast r10   /* the state the last stored slot showed */
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
register uint8_t sampler_reserved_r6 asm("r6");
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
extern volatile uint8_t raw_dropped; /* snapshots lost to a full ring (wraps; main counts deltas) */

/* Set up the pins' interrupts and the sampler's registers; `state` is the buttons now. */
void sampler_init(uint8_t state);
/* The buttons as the sampler folds them. */
uint8_t sampler_read(void);

#endif
#endif
