package dev.distlock.core.internal.acquire;

import org.jspecify.annotations.Nullable;

/**
 * How one acquire attempt stands to the owner's other attempts of the same lock, and the id its
 * script records with a grant (the lock's grant record), so that the clean-up after a lost reply
 * gives back exactly what that attempt took ({@link LostGrants}).
 *
 * @param mode what a hold of the owner that the script finds is
 * @param attemptId the id the script records when it takes the lock afresh for the owner or adopts
 *     a lost grant; {@code null} for a re-entry of a hold this client knows, which is never cleaned up
 */
public record AttemptGrant(Mode mode, @Nullable String attemptId) {

    /** What a hold of the owner that the acquire script finds is. */
    public enum Mode {
        /** The owner holds nothing here, as far as this client knows; no earlier attempt is uncertain. */
        FRESH('0'),
        /** The owner may hold the lock: a hold this client knows, or another attempt in flight. A re-entry. */
        MAY_HOLD('1'),
        /** The owner holds nothing this client knows, but an earlier attempt's reply was lost: adopt its hold. */
        ADOPT('2');

        private final char code;

        Mode(char code) {
            this.code = code;
        }

        /** @return the mode as the reentrant and multi acquire scripts read it: {@code '0'}, {@code '1'} or {@code '2'} */
        public char code() {
            return code;
        }
    }

    /** @return whether a hold of the owner that the script finds is a lost attempt's, to take over */
    public boolean adopts() {
        return mode == Mode.ADOPT;
    }

    /** @return the attempt id as the scripts take it: {@code ""} when none is recorded */
    public String idText() {
        return attemptId == null ? "" : attemptId;
    }

    /**
     * @return the mode as the acquire scripts take it: {@code "0"} fresh (a hold of the owner found
     *     there is an orphan, whose release was lost or failed: never re-entered, so that it expires
     *     with its lease), {@code "1"} a re-entry, {@code "2"} adopting a lost attempt's hold
     */
    public String modeText() {
        return String.valueOf(mode.code());
    }
}
