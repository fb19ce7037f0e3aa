package io.floe.spark.write;

import java.util.List;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/** The files one task wrote. */
public record FloeCommitMessage(List<WrittenFile> files) implements WriterCommitMessage {
}
