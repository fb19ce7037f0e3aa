package io.floe.format.scan;

/** What planning read and skipped: tests assert these counts instead of timing. */
public record ScanMetrics(int totalManifests, int scannedManifests, int skippedManifests, int totalDataFiles,
    int resultDataFiles, int skippedDataFiles, int resultDeleteFiles) {
}
