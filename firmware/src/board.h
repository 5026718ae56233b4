/*
 * What every part of the buzzer box firmware shares: the version, the protocol numbers
 * (PROTOCOL.md) and the board clock.
 */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

#include "sampler.h"

#define FIRMWARE_MAJOR 1
#define FIRMWARE_MINOR 0
#define FIRMWARE_PATCH 0
#define PROTOCOL_VERSION 1

#define TICK_HZ 16000000UL
#define TICKS_PER_US 16U
#define TICKS_PER_MS 16000UL
#define BAUD 1000000UL

#ifdef HOBBY_SAMPLER
#define FIRMWARE_VARIANT 1
#else
#define FIRMWARE_VARIANT 0
#endif

/* Frame types. */
#define FRAME_SYNC 0xA5
#define MAX_PAYLOAD 32
#define T_HELLO 0x01
#define T_EVENT 0x02
#define T_HEARTBEAT 0x03
#define T_SYNC_REPLY 0x04
#define T_ACK 0x05
#define T_NAK 0x06
#define C_LAMPS 0x81
#define C_BEEP 0x82
#define C_RESET 0x83
#define C_SYNC 0x84
#define C_HELLO_REQUEST 0x85
#define C_DEBOUNCE 0x86
#define NAK_VALUE 3 /* 1 and 2 (an unknown command, a wrong length) are bad frames now */

#define HEARTBEAT_TICKS (100 * TICKS_PER_MS)

/* The board clock: Timer1 at 16 MHz extended to 32 bits by the main loop (only the main loop
 * touches the overflow flag; the sampler reads Timer1's 16 bits and the main loop unwraps them). */
extern uint16_t clock_high;
void clock_init(void);
uint32_t clock_now(void);

/* Saturating counters reported in the heartbeat. */
static inline void count_up(uint16_t *counter) {
    if (*counter != 0xFFFF) {
        (*counter)++;
    }
}

#endif
