package io.floe.format.manifest;

import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.ResolvingDecoder;

/**
 * A generic datum reader that resolves the writer schema against the reader schema itself, once per
 * file, instead of through {@link GenericDatumReader}'s static caches: the fast reader's (on by
 * default since Avro 1.12, one per {@code GenericData}) and the per-thread resolver cache. Both are
 * weak maps whose values reference their keys, and every container file brings a new writer schema
 * object, so a driver that read thousands of manifests kept every one of their schemas.
 */
final class UncachedDatumReader extends GenericDatumReader<GenericRecord> {
  private ResolvingDecoder resolver = null;

  @Override
  public void setSchema(Schema writer) {
    super.setSchema(writer);
    resolver = null;
  }

  @Override
  public GenericRecord read(GenericRecord reuse, Decoder in) throws IOException {
    if (resolver == null) {
      resolver = DecoderFactory.get().resolvingDecoder(getSchema(), getExpected(), null);
    }
    resolver.configure(in);
    GenericRecord result = (GenericRecord) read(reuse, getExpected(), resolver);
    resolver.drain();
    return result;
  }
}
